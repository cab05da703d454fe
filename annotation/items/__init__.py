"""What is judged: importing topics, documents and items, the rules for untrusted input, and the item
browser's collecting side."""
