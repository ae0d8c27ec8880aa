CLAIMS = []
