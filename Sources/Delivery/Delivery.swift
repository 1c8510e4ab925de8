// The Delivery module; see README.md for its role.
