b = "maybe"
