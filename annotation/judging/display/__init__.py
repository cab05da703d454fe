"""What a judging page shows of imported text (pure; no Django): texts cut into readable parts and
paragraphs (``reading``), query terms highlighted (``highlight``)."""
