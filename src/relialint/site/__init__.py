"""The published catalogue: pages, search index and data generated from the records."""
