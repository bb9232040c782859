"""Agents that play: fixed bots, trained strategies, a human at the terminal; matches between them."""
