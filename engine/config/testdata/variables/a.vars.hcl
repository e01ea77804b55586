n = 10
s = "from a"
