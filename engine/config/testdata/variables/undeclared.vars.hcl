n    = 5
nope = 1
