print("traffic")
