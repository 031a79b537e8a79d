"""A person's own account: the "My account" page and the API tokens scripts authenticate with."""
