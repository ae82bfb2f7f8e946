print("puckctl")
