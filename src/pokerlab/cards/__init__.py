"""Cards: encoding, parsing, and the hold'em hand evaluator."""
