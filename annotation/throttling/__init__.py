"""Throttling of the public pages per client address (sign-up, invitation links, password reset, the
start of a study link's session): ``throttle``. The accounts and the judging features both use it, so it
stands apart from either."""
