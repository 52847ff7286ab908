"""Team management in the app: members, roles, invitations, the team's webhook (/teams/)."""
