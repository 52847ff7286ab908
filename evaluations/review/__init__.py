"""The life of a draft: the review state machine, how edits are made, revisions and their diffs,
review comments."""
