"""The researcher's item browser and item pages, and adjudication by hand: pages and API."""
