"""The pages and API of background jobs: a progress bar, then the result, for those who may read it."""
