"""Pay, cost and budget of a project's crowd workers: the work read from the database, the pages and
API that show it, and the payment exports."""
