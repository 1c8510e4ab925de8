// The GPSD module; see README.md for its role.
