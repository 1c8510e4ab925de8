print("livelocd")
