"""A team's approval policy (how many approvals, from whom), requests for a person's review,
and whether an evaluation's current revision has the approvals its team requires."""
