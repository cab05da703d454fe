"""What every REST endpoint of both apps shares: a JSON parser with a depth limit, and the renderers of
downloads (CSV, NDJSON, plain text, ZIP)."""
