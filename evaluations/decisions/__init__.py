"""The life of an approved stack: the decision, pinning and catalog drift, what-if swaps, the
decision record (ADR), cloning."""
