site: north
