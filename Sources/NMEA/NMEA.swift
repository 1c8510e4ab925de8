// The NMEA module; see README.md for its role.
