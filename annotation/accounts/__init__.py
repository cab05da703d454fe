"""Bringing annotators in: accounts a researcher creates, invitation links, sign-up with a project code
(``joining``), their forms and pages (``forms``, ``views``), and the throttle on the public account
pages."""
