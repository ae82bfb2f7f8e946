print("puckd")
