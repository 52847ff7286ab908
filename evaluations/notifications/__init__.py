"""Review notifications: who is told about an event (services), by e-mail (mail) and through the
team's webhook (webhooks)."""
