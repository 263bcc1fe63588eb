"""Game definitions: what each game offers (players, policies, rules, content) and how its
kernel is fed and its statistics named. Content files live in content/<game>/."""
