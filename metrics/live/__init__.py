"""Live estimates while judging is under way, the leaderboard on the judgments so far, and the
reusability report: pages, API, jobs and the reads and writes behind them."""
