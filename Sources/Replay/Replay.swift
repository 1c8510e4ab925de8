// The Replay module; see README.md for its role.
