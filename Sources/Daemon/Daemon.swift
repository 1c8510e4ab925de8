// The Daemon module; see README.md for its role.
