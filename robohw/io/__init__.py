"""Files of the command line: CSV tables, hand poses, joint configurations, results."""
