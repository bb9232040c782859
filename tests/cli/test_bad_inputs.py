# ruff: noqa: E501 - one case per line: a table reads better than wrapped rows
"""Bad and edge input across every command, as a table: each case exits 2 with exactly one `error:` line (one
line however long the input: a pasted 70,000-character value is never echoed back) saying what is wrong in
command-line words, before any work, and harms no file: the folder the case runs in (with a precious file, a
corrupt .npz and a binary file in it) is the same afterwards, byte for byte, and no output file appears."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from pokerlab.cli.common import MAX_MESSAGE
from pokerlab.cli.main import app

runner = CliRunner()

# (arguments with {tmp} for the case's folder, a part of the one error line)
CASES = [
    (["eval", "AsKs"], "a hand to evaluate needs 5, 6 or 7 cards, got 2"),
    (["eval", "AsKsQsJsTs9s8s7s"], "a hand to evaluate needs 5, 6 or 7 cards, got 8"),
    (["eval", "AsAsQsJsTs"], "duplicate card As"),
    (["eval", "AxKsQsJsTs"], "'Ax': unknown suit 'x' (expected one of cdhs or ♣♦♥♠)"),
    (["eval", "1sKsQsJsTs"], "'1s': unknown rank '1' (expected one of 23456789TJQKA or 10)"),
    (["eval", "A♠K♠Q♠J♠"], "a hand to evaluate needs 5, 6 or 7 cards, got 4"),
    (["eval", "As Ks Qs Js T"], "'T': missing suit (expected a rank then one suit of cdhs)"),
    (["eval", "A" * 70_000], "'AA': unknown suit 'A' (expected one of cdhs or ♣♦♥♠)"),
    (["eval", ""], "a hand to evaluate needs 5, 6 or 7 cards, got 0"),
    (["eval", "--json"], "Missing argument 'CARDS...'. (see pokerlab eval --help)"),
    (["equity", "AsKs"], "equity needs 2 to 10 players, got 1"),
    (["equity", "AsKs", "AsQd"], "player 2 (AsQd) holds As, which is already on the board, dead or in"),
    (["equity", "AsKs", "QQ", "--board", "2c3c"], "a board has 0, 3, 4 or 5 cards, got 2"),
    (["equity", "AsKs", "QQ", "--board", "AsJd9c"], "player 1 (AsKs) holds As, which is already on the board, dead or in"),
    (["equity", "AsKs", "QQ", "--exact", "--mc"], "--exact and --mc are exclusive"),
    (["equity", "AsKs", "QQ", "--exact", "--trials", "100"], "--trials, --time and --stderr are Monte Carlo limits; --exact enumerates every board"),
    (["equity", "AsKs", "QQ", "--mc", "--trials", "0"], "trial count must be at least 1, got 0"),
    (["equity", "AsKs", "QQ", "--mc", "--trials", "-5"], "trial count must be at least 1, got -5"),
    (["equity", "AsKs", "QQ", "--mc", "--time", "-1"], "time limit must be a positive number of seconds, got -1.0"),
    (["equity", "AsKs", "QQ", "--mc", "--stderr", "0"], "target standard error must be positive, got 0.0"),
    (["equity", "AsKs", "QQ", "--mc", "--seed", "-1"], "seed must be at least 0, got -1"),
    (["equity", "AsKs", "QQ", "--mc", "--trials", "abc"], "Invalid value for '--trials' / '-n': 'abc' is not a valid integer."),
    (["equity", "AsKs", "ZZ+"], "player 2: 'ZZ+': expected a hand class (AA, AKs, AKo, AK), a class"),
    (["equity", "AsKs", "QQ+:2"], "player 2: 'QQ+:2': the weight after ':' must be in [0, 1], got 2"),
    (["equity", "AsKs", "QQ", "--dead", "AsQc"], "player 1 (AsKs) holds As, which is already on the board, dead or in"),
    (["equity", "random", "random", "random", "random", "random", "random", "random", "random", "random", "random", "random"], "equity needs 2 to 10 players, got 11"),
    (["equity", "AsKs", "QQ", "--mc", "--trials", "1000000000000000"], "1,000,000,000,000,000 trials would take at least 11.6 days (about"),
    (["equity", "AsKs", "QQ", "--mc", "--time", "nan"], "time limit must be a positive number of seconds, got nan"),
    (["equity", "AsKs", "QQ", "--bogus"], "No such option: --bogus (see pokerlab equity --help)"),
    (["equity", "AsKs", "1,2" * 30_000], "player 2: '1': expected a hand class (AA, AKs, AKo, AK), a class with"),
    (["range", "ZZ"], "'ZZ': expected a hand class (AA, AKs, AKo, AK), a class with + (QQ+,"),
    (["range", ""], "empty range: expected a hand class (AA, AKs, AKo, AK), a class with +"),
    (["range", "QQ+", "--board", "QsQhQdQcQx"], "'Qx': unknown suit 'x' (expected one of cdhs or ♣♦♥♠)"),
    (["range", "QQ+", "--png", "{tmp}/missing/g.png"], "cannot write output file {tmp}/missing/g.png: folder {tmp}/missing"),
    (["range", "QQ+", "--png", "{tmp}/g.txt"], "cannot write a figure to '{tmp}/g.txt': use one of .png, .pdf, .svg"),
    (["range", "QQ+", "--png", "{tmp}"], "cannot write a figure to '{tmp}': it is a folder"),
    (["range", "AKs:1.5"], "'AKs:1.5': the weight after ':' must be in [0, 1], got 1.5"),
    (["range", "101%"], "'101%': a percentage must be in (0, 100]"),
    (["icm", "--payouts", "50,30"], "give the stacks with exactly one of --stacks or --stacks-file"),
    (["icm", "--stacks", "5000,3000", "--stacks-file", "{tmp}/s.txt", "--payouts", "50"], "give the stacks with exactly one of --stacks or --stacks-file"),
    (["icm", "--stacks", "5,000,3,000", "--payouts", "60,40"], "stacks '5,000,3,000' are ambiguous: is ',' a thousands separator or"),
    (["icm", "--stacks", "5,500,3,250", "--payouts", "60,40"], "stacks '5,500,3,250' are ambiguous: is ',' a thousands separator or"),
    (["icm", "--stacks", "5,00 3,000", "--payouts", "60,40"], "stack '5,00': a thousands separator comes before each group of three"),
    (["icm", "--stacks", "5000,-1", "--payouts", "50"], "stacks must be >= 0, player 2 has -1"),
    (["icm", "--stacks", "5000,abc", "--payouts", "50"], "'abc' has no stack (write stacks like 5,000 or name:5,000)"),
    (["icm", "--stacks", "alice bob", "--payouts", "50"], "'alice bob' has no stack (write stacks like 5,000 or name:5,000)"),
    (["icm", "--stacks", "alice:5000 alice:3000", "--payouts", "50"], "two players are called 'alice': names must differ"),
    (["icm", "--stacks", "5000,3000", "--payouts", "30,50"], "place 2 pays 50, more than place 1 (30): list payouts from first"),
    (["icm", "--stacks", "5000,3000", "--payouts", "60/25/10"], "the split '60/25/10' adds up to 95%, not 100%"),
    (["icm", "--stacks", "5000,3000", "--payouts", "60/x"], "cannot parse the split '60/x': write percentages like 70/30 or"),
    (["icm", "--stacks", "5000,3000", "--payouts", "50,30", "--pool", "100"], "a prize pool applies to percentage splits (70/30, 50%,30%,20%) and to"),
    (["icm", "--stacks", "5000,3000", "--payouts", "70/30", "--pool", "-5"], "prize pool must be a positive number, got -5.0"),
    (["icm", "--stacks", "5000,3000", "--payouts", "70/30", "--pool", "abc"], "prize pool 'abc' is not a number (write amounts like 5000 or 5,000)"),
    (["icm", "--stacks", "5000,3000", "--payouts", "1e308,1e308"], "payouts add up to more than 1.8e308, the largest amount a float holds"),
    (["icm", "--stacks", "5000,3000", "--payouts", "50,30,20"], "3 payouts for 2 players: there are more paid places than players"),
    (["icm", "--stacks", "5000,3000", "--payouts", "power:paid=x"], "'power:paid=x': paid must be a number, got 'x'"),
    (["icm", "--stacks", "5000,3000", "--payouts", "power:paid=0"], "'power:paid=0': paid places must be from 1 to 1,000,000, got 0"),
    (["icm", "--stacks", "5000,3000", "--payouts", "flat:pool=-1,paid=2"], "prize pool must be a positive number, got -1.0"),
    (["icm", "--stacks", "5000,3000", "--bounty", "-1"], "bounties must be >= 0, player 1 has -1"),
    (["icm", "--stacks", "5000,3000,2000", "--bounty", "1,2"], "2 bounties for 3 players: give one bounty per player, or one for all"),
    (["icm", "--stacks", "5000,3000", "--bounty", "x"], "bounty 'x' is not a number (write amounts like 5000 or 5,000)"),
    (["icm", "--stacks", "5000,3000", "--payouts", "50,30", "--pko"], "--pko needs bounties: give --bounty (or --bounty-column)"),
    (["icm", "--stacks", "5000,3000", "--bounty", "1", "--pko-share", "0.4"], "--pko-share applies to a progressive knockout: add --pko"),
    (["icm", "--stacks", "5000,3000", "--bounty", "1", "--pko", "--pko-share", "1.5"], "the PKO share (the part of a bounty paid to the buster) must be in (0, 1]"),
    (["icm", "--stacks", "5000,3000"], "give the payouts (--payouts) or a knockout bounty (--bounty)"),
    (["icm", "--stacks", "5000,3000", "--bounty", "1", "--places"], "--places, --bubble-factors, --deal and --plot need --payouts"),
    (["icm", "--stacks", "5000,3000", "--bounty", "1", "--bounty-column"], "--bounty-column reads the bounties from --stacks-file"),
    (["icm", "--stacks-file", "{tmp}/s.txt", "--bounty-column"], "line 1 of the stacks file ('5000') has no bounty column"),
    (["icm", "--stacks", "5000,3000", "--payouts", "50", "--method", "magic"], "unknown ICM method 'magic'; use one of auto, exact, subset, montecarlo"),
    (["icm", "--stacks-file", "{tmp}/none.txt", "--payouts", "50"], "cannot read stacks file {tmp}/none.txt: No such file or directory"),
    (["icm", "--stacks-file", "{tmp}/blob.bin", "--payouts", "50"], "stacks file {tmp}/blob.bin is not a UTF-8 text file (invalid start"),
    (["icm", "--stacks", "5000,3000", "--payouts", "{tmp}/none.csv"], "cannot read payouts file {tmp}/none.csv: No such file or directory"),
    (["icm", "--stacks", "5000,3000", "--payouts", "50", "--plot", "{tmp}/missing/p.png"], "cannot write output file {tmp}/missing/p.png: folder {tmp}/missing"),
    (["icm", "--stacks", "5000,3000", "--payouts", "50", "--plot", "{tmp}/p.txt"], "cannot write a figure to '{tmp}/p.txt': use one of .png, .pdf, .svg"),
    (["icm", "--stacks", "5000,3000", "--payouts", "50", "--plot", "{tmp}"], "cannot write a figure to '{tmp}': it is a folder"),
    (["icm", "--stacks", "5,3", "--payouts", "50", "--seed", "1"], "seed applies only to --method montecarlo; --method auto is exact"),
    (["icm", "--stacks", "5,3", "--payouts", "50", "--method", "montecarlo", "--samples", "1"], "samples must be at least 2 for plain Monte Carlo (a standard error"),
    (["icm", "--stacks", "5,3", "--payouts", "50", "--method", "montecarlo", "--samples", "1000000000000000"], "1,000,000,000,000,000 samples of 2 players would take at least 23.1"),
    (["icm", "--stacks", "5,3", "--payouts", "50", "--half-width", "1"], "--half-width applies only to --method montecarlo; --method auto is"),
    (["icm", "--stacks", "5,3", "--payouts", "50", "--method", "montecarlo", "--time", "0"], "time limit must be a positive number of seconds, got 0.0"),
    (["icm", "--stacks", "0,0", "--payouts", "50"], "every stack is 0: at least one player must have chips"),
    (["icm", "--stacks", "inf,3", "--payouts", "50"], "stack 'inf': amounts must be finite numbers"),
    (["icm", "--stacks", "nan,3", "--payouts", "50"], "stack 'nan': amounts must be finite numbers"),
    (["icm", "--stacks", "1" + ",1" * 70_000, "--payouts", "50", "--bubble-factors"], "--bubble-factors need 4,900,070,000 ICM runs of 70,001 players each"),
    (["icm", "--stacks", "x" * 70_000, "--payouts", "50"], "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…'"),
    (["icm", "--stacks", "5,3", "--payouts", "50", "--method", "montecarlo", "--variance-reduction", "magic"], "unknown variance reduction 'magic'; use one of plain, antithetic,"),
    (["solve", "holdem"], "unknown game 'holdem' for the tree-form solvers (expected one of rps, rps2, kuhn, leduc, kuhn4,"),
    (["solve", "kuhn", "--algo", "cfr++"], "unknown algorithm 'cfr++' (expected one of cfr, cfr+, lcfr, dcfr,"),
    (["solve", "kuhn", "-n", "-3"], "iterations must be at least 0, got -3"),
    (["solve", "kuhn", "--out", "{tmp}/missing/k.npz"], "cannot write output file {tmp}/missing/k.npz: folder {tmp}/missing"),
    (["solve", "kuhn", "--out", "{tmp}"], "cannot write output file {tmp}: it is a folder"),
    (["solve", "kuhn", "--out", "{tmp}/keep.npz/x.npz"], "cannot write output file {tmp}/keep.npz/x.npz: {tmp}/keep.npz is not"),
    (["solve", "kuhn", "--resume", "{tmp}/none.npz"], "no solver file {tmp}/none.npz"),
    (["solve", "kuhn", "--resume", "{tmp}/bad.npz"], "{tmp}/bad.npz: not a pokerlab solver file (not a .npz archive)"),
    (["solve", "kuhn", "--resume", "{tmp}/keep.npz", "--seed", "1"], "--seed cannot be given with --resume (the saved random state"),
    (["solve", "kuhn", "--target-exploitability", "-1"], "target exploitability must be a positive number, got -1.0"),
    (["solve", "kuhn", "--time", "0"], "time limit must be a positive number of seconds, got 0.0"),
    (["solve", "kuhn", "--algo", "cfr", "--alpha", "1"], "cfr does not use alpha; it applies to lcfr and dcfr"),
    (["solve", "kuhn", "--algo", "dcfr", "--alpha", "100"], "alpha must be a finite number in [0, 10], got 100.0"),
    (["solve", "kuhn", "-n", "1000000000000000000"], "1,000,000,000,000,000,000 iterations of kuhn would take at least"),
    (["solve", "kuhn", "--checkpoint-every", "0"], "--checkpoint-every takes a positive number of iterations (5000) or a"),
    (["solve"], "Missing argument 'GAME'. (see pokerlab solve --help)"),
    (["solve", "kuhn", "-n", "x"], "Invalid value for '--iterations' / '-n': 'x' is not a valid integer."),
    (["exploitability", "{tmp}/none.npz"], "no solver file {tmp}/none.npz"),
    (["exploitability", "{tmp}/bad.npz"], "{tmp}/bad.npz: not a pokerlab solver file (not a .npz archive)"),
    (["exploitability", "{tmp}/blob.bin"], "{tmp}/blob.bin: not a pokerlab solver file (not a .npz archive)"),
    (["export", "{tmp}/none.npz"], "no solver file {tmp}/none.npz"),
    (["export", "{tmp}/bad.npz", "--format", "acpc"], "unknown export format 'acpc' (expected openspiel)"),
    (["export", "{tmp}/bad.npz", "-o", "{tmp}/missing/p.json"], "cannot write output file {tmp}/missing/p.json: folder {tmp}/missing"),
    (["rps", "--iterations", "0"], "iterations must be from 1 to 1,000,000,000, got 0"),
    (["rps", "--iterations", "10000000000000"], "iterations must be from 1 to 1,000,000,000, got 10,000,000,000,000"),
    (["rps", "--png", "{tmp}/missing/r.png"], "cannot write output file {tmp}/missing/r.png: folder {tmp}/missing"),
    (["rps", "--png", "{tmp}/r.gif"], "cannot write a figure to '{tmp}/r.gif': use one of .png, .pdf, .svg"),
    (["match", "random", "fullbet", "--hands", "0"], "--hands must be at least 2 (the confidence interval needs two), got 0"),
    (["match", "random", "fullbet", "--hands", "1000000000000"], "1,000,000,000,000 hands would need about 7.3 TiB of memory (8 bytes"),
    (["match", "random", "fullbet", "--game", "chess"], "unknown game 'chess' for play (expected one of kuhn, leduc, kuhn4, leduc3s, leduc-2sizes, two-round)"),
    (["match", "random", "robot"], "unknown agent 'robot': expected random, fullbet, checkcall, cfr or a"),
    (["match", "random", "{tmp}/none.npz"], "unknown agent '{tmp}/none.npz': expected random, fullbet, checkcall,"),
    (["match", "random", "fullbet", "--seed", "-2"], "seed must be at least 0, got -2"),
    (["match", "random", "fullbet", "--matches", "-1"], "--matches must be a non-negative integer, got -1"),
    (["match", "random", "fullbet", "--matches", "1000000000", "--max-match-hands", "1000000"], "1,000,000,000 matches of up to 1,000,000 hands would take at least"),
    (["match", "random"], "Missing argument 'AGENT_B'. (see pokerlab match --help)"),
    (["play", "chess"], "unknown game 'chess' for play (expected one of kuhn, leduc, kuhn4, leduc3s, leduc-2sizes, two-round)"),
    (["play", "kuhn", "--hands", "0"], "--hands must be a positive integer, got 0"),
    (["play", "kuhn", "--vs", "robot"], "unknown agent 'robot': expected random, fullbet, checkcall, cfr or a"),
    (["two-round", "size", "--stack", "99"], "two-round game: need 0 <= stack <= 40, 1 <= max_bet <= 20, 1 <= ante"),
    (["two-round", "size", "--suits", "9"], "two-round game: ranks must be 4..13 and suits 1..4 (got 7, 9)"),
    (["two-round", "train", "--out", "{tmp}/missing/b.npz", "-n", "10"], "cannot write output file {tmp}/missing/b.npz: folder {tmp}/missing"),
    (["two-round", "train", "--out", "{tmp}", "-n", "10"], "cannot write output file {tmp}: it is a folder"),
    (["two-round", "train", "--out", "{tmp}/b.npz", "-n", "-1"], "--iterations must be a non-negative integer, got -1"),
    (["two-round", "train", "--out", "{tmp}/b.npz", "--resume", "{tmp}/none.npz"], "strategy file not found: {tmp}/none.npz"),
    (["two-round", "train", "--out", "{tmp}/b.npz", "--resume", "{tmp}/bad.npz"], "{tmp}/bad.npz: not a pokerlab two-round bot file (not a .npz archive)"),
    (["two-round", "train", "--out", "{tmp}/b.npz", "-n", "1000000000000000"], "--iterations 1,000,000,000,000,000 would take at least 15.8 years"),
    (["two-round", "exploitability", "nobody"], "no bot file 'nobody' (expected a file from `pokerlab two-round"),
    (["two-round", "exploitability", "{tmp}/bad.npz"], "{tmp}/bad.npz: not a pokerlab two-round bot file (not a .npz archive)"),
    (["two-round", "train", "--out", "{tmp}/b.npz", "--buckets", "-3", "-n", "1"], "buckets must be >= 0, got -3"),
    (["nosuchcommand"], "No such command 'nosuchcommand'. (see pokerlab --help)"),
    (["icm", "--stacks"], "Option '--stacks' requires an argument."),
    (["--bogus"], "No such option: --bogus (see pokerlab --help)"),
    (["postflop", "--oop", "AA"], "No such option: --oop (--oop is an option of pokerlab postflop solve and pokerlab postflop report: see pokerlab postflop solve --help)"),
    (["--stacks", "10,10"], "No such option: --stacks (--stacks is an option of pokerlab icm, pokerlab pushfold and pokerlab simulate: see pokerlab icm --help)"),
    (["postflop", "--bogus"], "No such option: --bogus (see pokerlab postflop --help)"),
    (["icm", "--stacks", "inf,3", "--payouts", "50"], "stack 'inf': amounts must be finite numbers"),
    (["icm", "--stacks", "nan 3", "--payouts", "50"], "stack 'nan': amounts must be finite numbers"),
    (["icm", "--stacks", "5,00 3,000", "--payouts", "60,40"], "stack '5,00': a thousands separator comes before each group of three"),
    (["icm", "--stacks", "5,000,3,000", "--payouts", "3,000,2,000"], "stacks '5,000,3,000' are ambiguous: is ',' a thousands separator or"),
    (["icm", "--stacks", "5000 3000", "--payouts", "50%,30%"], "the split '50%,30%' adds up to 80%, not 100%"),
    (["icm", "--stacks", "5000 3000", "--payouts", "70/30:pool=-1"], "prize pool must be a positive number, got -1.0"),
    (["icm", "--stacks", "5000 3000 2000", "--payouts", "power:paid=3", "--pool", "0"], "prize pool must be a positive number, got 0.0"),
    (["icm", "--stacks", "5000 3000", "--payouts", "50", "--plot", "{tmp}/keep.npz/p.png"], "cannot write output file {tmp}/keep.npz/p.png: {tmp}/keep.npz is not"),
    (["icm", "--stacks", "5000 3000", "--payouts", "50", "--json", "--places", "--method", "montecarlo", "--variance-reduction", "sobol"], "finish places by Monte Carlo are counted from plain samples: use"),
    (["equity", "A♠K♠", "Q♥Q♦", "--board", "A♠2c3d"], "player 1 (A♠K♠) holds As, which is already on the board, dead or in"),
    (["equity", "AsKs", "QQ", "--mc", "--trials", "1e9"], "Invalid value for '--trials' / '-n': '1e9' is not a valid integer."),
    (["eval", "A♠K♠Q♠J♠T♣x"], "'x': unknown rank 'x' (expected one of 23456789TJQKA or 10)"),
    (["range", "QQ+", "--png", "{tmp}/keep.npz/g.png"], "cannot write output file {tmp}/keep.npz/g.png: {tmp}/keep.npz is not"),
    (["solve", "kuhn", "--checkpoint-every", "10 minutes"], "--checkpoint-every takes a positive number of iterations (5000) or a"),
    (["solve", "kuhn", "--checkpoint-every", "1.5"], "--checkpoint-every iterations must be a whole number, got float 1.5"),
    (["solve", "kuhn", "--resume", "{tmp}/blob.bin"], "{tmp}/blob.bin: not a pokerlab solver file (not a .npz archive)"),
    (["exploitability"], "Missing argument 'FILE'. (see pokerlab exploitability --help)"),
    (["export", "{tmp}/none.npz", "-o", "{tmp}"], "cannot write output file {tmp}: it is a folder"),
    (["match", "random", "fullbet", "--start-chips", "1"], "--start-chips must be at least 2, got 1"),
    (["match", "random", "fullbet", "--hands", "2.5"], "Invalid value for '--hands' / '-n': '2.5' is not a valid integer."),
    (["two-round", "train"], "give --out FILE.npz to save the bot (or --resume a checkpoint to"),
    (["two-round", "train", "--out", "{tmp}/b.npz", "--checkpoint-every", "-5"], "--checkpoint-every takes a positive number of iterations (5000) or a"),
    (["two-round", "train", "--resume", "{tmp}/bad.npz", "--stack", "4"], "--stack cannot be given with --resume (the checkpoint keeps its own)"),
    (["pushfold", "--stacks", "10,10", "--png", "{tmp}/missing/charts"], "cannot write --png chart folder {tmp}/missing/charts: folder {tmp}/missing does not exist"),
    (["pushfold", "--chart", "heads-up", "--png", "{tmp}/keep.npz/charts"], "cannot write --png chart folder {tmp}/keep.npz/charts: {tmp}/keep.npz is not a folder"),
    (["pushfold", "--stacks", "10,10", "--png", "{tmp}/keep.npz"], "--png needs a directory, {tmp}/keep.npz is a file"),
    (["pushfold", "--stacks", "abc"], "'abc' has no stack (write stacks like 5,000 or name:5,000)"),
    (["pushfold", "--stacks", "10,10", "--blinds", "x"], "blind 'x' is not a number (write amounts like 5000 or 5,000)"),
    (["pushfold", "--stacks", "5,000,3,000"], "stacks '5,000,3,000' are ambiguous: is ',' a thousands separator or"),
    (["pushfold", "--stacks", "5,00 3,000"], "stack '5,00': a thousands separator comes before each group of three"),
    (["pushfold", "--stacks", "alice:10 alice:10"], "two players are called 'alice': names must differ"),
    (["pushfold", "--stacks", "10,10", "--blinds", "1/2/3"], "give two blinds (small, big), e.g. 0.5,1; got 3"),
    (["pushfold", "--stacks", "10,10", "--blinds", "50,100"], "blinds '50,100' are ambiguous: is ',' a thousands separator or"),
    (["pushfold", "--stacks", "10,10,10", "--payouts", "50%,30%"], "the split '50%,30%' adds up to 80%, not 100%"),
    (["pushfold", "--stacks", "10,10,10", "--payouts", "20,30"], "place 2 pays 30, more than place 1 (20): list payouts from first place down (push/fold takes no rising"),
    (["pushfold", "--stacks", "10,10", "--pool", "500"], "--pool divides the --payouts: give --payouts too"),
    (["pushfold", "--stacks", "10,10", "--payouts", "70/30", "--pool", "0"], "prize pool must be a positive number, got 0.0"),
    (["pushfold", "--stacks", "10,10", "--payouts", "50", "--field-stacks-file", "{tmp}/none.txt"], "cannot read stacks file {tmp}/none.txt: No such file"),
    (["pushfold", "--stacks", "10,10", "--payouts", "50", "--field-stacks-file", "{tmp}/blob.bin"], "stacks file {tmp}/blob.bin is not a UTF-8 text file"),
    (["pushfold", "--stacks", "10,10", "--iterations", "-1"], "iterations must be at least 1, got -1"),
    (["pushfold"], "give the stacks with --stacks"),
    (["icm", "--stacks", "1,2,3", "--payouts", "50,30,20", "--fgs-depth", "2"], "--fgs-depth plays hands out: give the blinds too (--blinds 50/100)"),
    (["icm", "--stacks", "1,2,3", "--payouts", "50,30,20", "--fgs-depth", "9", "--blinds", "0.5,1"], "the FGS depth must be from 0 to 4, got 9"),
    (["icm", "--stacks", "1,2,3", "--payouts", "50,30,20", "--fgs-depth", "1", "--blinds", "0.5,1", "--button", "4"], "--button must be a seat from 1 to 3, got 4"),
    (["icm", "--stacks", "1,2,3", "--payouts", "50,30,20", "--fgs-depth", "1", "--blinds", "0.5,1", "--places"], "--fgs-depth reports FGS and ICM equity only: drop --method, --places"),
    (["pushfold", "--stacks", "10,10,10", "--payouts", "50,30,20", "--fgs-depth", "5"], "the FGS depth must be from 0 to 4, got 5"),
    (["pushfold", "--stacks", "10,10,10", "--payouts", "50,30,20", "--fgs-depth", "-1"], "the FGS depth must be from 0 to 4, got -1"),
    (["pushfold", "--stacks", "10,10,10", "--fgs-depth", "2"], "FGS values prize money: give the payouts (--payouts), or leave out the FGS depth"),
    (["pushfold", "--stacks", "10,10", "--payouts", "1", "--fgs-depth", "1", "--field-stacks-file", "{tmp}/s.txt"], "FGS plays this table as the whole tournament: leave out the field"),
    (["simulate", "--payouts", "50,30", "--tournaments", "0", "--players", "3", "--starting-stack", "100"], "tournaments must be from 1 to"),
    (["simulate", "--payouts", "50,30", "--stacks", "5,000,3,000"], "stacks '5,000,3,000' are ambiguous"),
    (["simulate", "--payouts", "50,30", "--stacks", "5,3,2", "--seed", "-1"], "seed must be at least 0, got -1"),
    (["simulate"], "Missing option '--payouts'"),
    (["simulate", "--payouts", "50,30", "--stacks", "5,3,2", "--seed", "18446744073709551616"], "seed must be at most 18,446,744,073,709,551,615 (64 bits)"),
    (["simulate", "--payouts", "50,30", "--stacks", "5,3,2", "--ray", ""], "--ray is empty: give a Ray address"),
    (["simulate", "--payouts", "50,30", "--stacks", "5,3,2", "--output", ""], "--output is empty: give a folder"),
    (["simulate", "--payouts", "50,30", "--stacks", "5,3,2", "--checkpoint", " "], "--checkpoint is empty: give a folder"),
    (["simulate", "--payouts", "50,30", "--stacks", "5,3,2", "--starting-stack", "100"], "--starting-stack applies to --players only: --stacks gives every player's chips"),
    (["simulate", "--payouts", "50,30", "--stacks", "5,3,2", "--play", "tight", "--bet", "10"], "--bet is the coin flip stake: --play tight plays by charts, without it"),
    (["simulate", "--payouts", "50,30", "--stacks", "5,3,2", "--play", "tight", "--bet", "all-in"], "--bet is the coin flip stake"),
    (["simulate", "--payouts", "50,30", "--stacks", "5,3,2", "--play", "rules:0.8,tight:0.8"], "play model shares add up to 1.6, not 1"),
    (["simulate", "--payouts", "50,30", "--stacks", "5,3,2", "--continuations", "10"], "--continuations applies to --from-snapshot only"),
    (["simulate", "--payouts", "50,30", "--from-snapshot", "{tmp}/s.txt", "--tournaments", "10"], "--from-snapshot plays --continuations of the snapshot, not --tournaments"),
    (["simulate", "--payouts", "50,30", "--from-snapshot", "{tmp}/s.txt", "--continuations", "0"], "continuations must be from 1 to"),
    (["simulate", "--payouts", "50,30,20", "--players", "100000", "--tournaments", "1000000000"], "1,000,000,000 tournaments of 100,000 players would need about"),
    (["simulate", "--payouts", "50,30,20", "--players", "100000", "--tournaments", "10000000"], "10,000,000 tournaments of 100,000 players would need about"),
    (["pushfold", "--chart", "heads-up", "--depths", "1-100000000"], "depths '1-100000000' ask for 100,000,000 solves; a chart takes at most 1,000"),
    (["pushfold", "--stacks", "1e300,1e300"], "a stack of 1e+300 big blinds is deeper than push/fold can solve"),
    (["pushfold", "--stacks", "10,10", "--bounty", "-2"], "bounties must be >= 0, player 1 has -2"),
    (["pushfold", "--stacks", "10,10", "--bounty", "1,2,3"], "3 bounties for 2 players: give one bounty per player"),
    (["pushfold", "--stacks", "10,10", "--pko"], "--pko needs bounties: give --bounty"),
    (["pushfold", "--stacks", "10,10", "--bounty", "1", "--pko", "--pko-share", "0"], "the PKO share (the part of a bounty paid to the buster) must be in (0, 1]"),
    (["pushfold", "--stacks", "10,10", "--bounty", "1", "--pko-share", "0.3"], "--pko-share applies to a progressive knockout: add --pko"),
    (["pushfold", "--stacks", "10,10,10,10,10,10,10,10,10,10", "--multiway-samples", "1000000000"], "--multiway-samples 1,000,000,000 at 10 seats would need about"),
    (["serve", "--workers", "0"], "--workers must be from 1 to 64, got 0"),
    (["serve", "--port", "0"], "--port must be from 1 to 65535, got 0"),
    (["serve", "--queue", "-1"], "--queue must be >= 0, got -1"),
    (["warmup", "--jobs", "0"], "Invalid value for '--jobs' / '-j': 0 is not in the range 1<=x<=16."),
    (["warmup", "extra"], "Got unexpected extra argument (extra)"),
    (["postflop", "solve", "--board", "Kh9d", "--oop", "QQ", "--ip", "JJ", "--pot", "100", "--stack", "200"], "a postflop board has 3, 4 or 5 cards, got 2"),
    (["postflop", "solve", "--board", "Kh9d5c2s2h3c", "--oop", "QQ", "--ip", "JJ", "--pot", "100", "--stack", "200"], "a postflop board has 3, 4 or 5 cards, got 6"),
    (["postflop", "solve", "--board", "AsKd5c", "--oop", "AsKs", "--ip", "JJ", "--pot", "100", "--stack", "200"], "the OOP range is empty once the board's cards are removed"),
    (["postflop", "solve", "--board", "2c3d5c", "--oop", "AsKs", "--ip", "AsKs", "--pot", "100", "--stack", "200"], "no deal: every OOP combo shares a card with every IP combo"),
    (["postflop", "solve", "--board", "Kh9d5c", "--oop", "QQ", "--ip", "JJ", "--pot", "100", "--stack", "200", "--bets", "33%,big"], "bet size 'big' does not parse: use a pot fraction (75%), a raise multiple"),
    (["postflop", "solve", "--board", "Kh9d5c", "--oop", "QQ", "--ip", "JJ", "--pot", "100", "--stack", "200", "--bets", "0%"], "bet size '0%': a pot fraction must be above 0% and at most 10000%"),
    (["postflop", "solve", "--board", "Kh9d5c", "--oop", "QQ", "--ip", "JJ", "--pot", "100", "--stack", "200", "--raises", "0.5x"], "raise size '0.5x': a raise multiple must be above 1x and at most 100x"),
    (["postflop", "solve", "--board", "Kh9d5c", "--oop", "QQ", "--ip", "JJ", "--pot", "100", "--stack", "200", "--bets", "preflop: 50%"], "'preflop: 50%': expected 'flop: ...', 'turn: ...' or 'river: ...'"),
    (["postflop", "solve", "--board", "Kh9d5c", "--oop", "QQ", "--ip", "JJ", "--pot", "0", "--stack", "200"], "the starting pot (chips) must be at least 1, got 0"),
    (["postflop", "solve", "--board", "Kh9d5c", "--oop", "QQ", "--ip", "JJ", "--pot", "100", "--stack", "-5"], "the effective stack (chips) must be at least 0, got -5"),
    (["postflop", "solve", "--board", "Td9d6h", "--oop", "random", "--ip", "random", "--pot", "100", "--stack", "900", "--bets", "60%,e,a", "--raises", "2.5x"], "this tree needs about 9,711 MiB of solver storage, above the limit of 4,096 MiB"),
    (["postflop", "solve", "--board", "Kh9d5c", "--oop", "QQ", "--ip", "JJ", "--pot", "100", "--stack", "200", "--target", "abc"], "target 'abc': expected a share of the pot such as 0.5%"),
    (["postflop", "solve", "--board", "Kh9d5c", "--oop", "QQ,ZZ", "--ip", "JJ", "--pot", "100", "--stack", "200"], "OOP range: 'ZZ': expected a hand class"),
    (["postflop", "solve", "--board", "Kh9d5c2s", "--oop", "QQ", "--ip", "JJ", "--pot", "100", "--stack", "200", "--out", "{tmp}/missing/s.npz"], "cannot write --out solve file {tmp}/missing/s.npz: folder {tmp}/missing"),
    (["postflop", "show", "{tmp}/bad.npz"], "{tmp}/bad.npz: not a pokerlab postflop solve (not a .npz archive)"),
    (["postflop", "show", "{tmp}/missing.npz"], "no pokerlab postflop solve {tmp}/missing.npz"),
    (["pushfold", "--stacks", "10,10,10", "--payouts", "50,30,20", "--bounty", "1", "--fgs-depth", "1"], "FGS with knockout bounties is not offered"),
    (["icm", "--stacks", "10,10,10", "--payouts", "50,30,20", "--bounty", "1", "--fgs-depth", "1", "--blinds", "1/2"], "--fgs-depth values prize money without bounties"),
    (["postflop", "report", "--oop", "QQ", "--ip", "JJ", "--pot", "100", "--stack", "200", "--flops", "1800"], "a flop subset has 1 to 1,755 flops, got 1800"),
    (["postflop", "report", "--oop", "QQ", "--ip", "JJ", "--pot", "100", "--stack", "200", "--flops", "Kh9d"], "flop 'Kh9d' has 2 cards: a flop is three, e.g. AsKd2c"),
    (["postflop", "report", "--oop", "QQ", "--ip", "JJ", "--pot", "100", "--stack", "200", "--output", "{tmp}/keep.npz"], "output path {tmp}/keep.npz exists and is not a directory"),
]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(("args", "message"), CASES, ids=[" ".join(a)[:60] for a, _ in CASES])
def test_bad_input_is_one_line_exit_2_and_harms_nothing(args, message, tmp_path, monkeypatch):
    (tmp_path / "keep.npz").write_bytes(b"precious")
    (tmp_path / "bad.npz").write_text("nope")
    (tmp_path / "blob.bin").write_bytes(bytes(range(256)) * 4)
    (tmp_path / "s.txt").write_text("5000\n3000\n")
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path)
    result = runner.invoke(app, [arg.replace("{tmp}", str(tmp_path)) for arg in args])
    assert result.exit_code == 2, result.output[-500:]
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output[-500:]
    assert len(lines[0]) <= len("error: ") + MAX_MESSAGE + 40  # + the usage hint
    assert message.replace("{tmp}", str(tmp_path)) in lines[0]
    assert snapshot(tmp_path) == before


def test_the_table_covers_every_command():
    from pokerlab.cli.main import COMMANDS, load_command

    covered = {" ".join(args[:2]) if args[0] in COMMANDS and hasattr(load_command(args[0]), "commands")
               else args[0] for args, _ in CASES}
    listed = set()
    for name, (_, short_help) in COMMANDS.items():
        group = getattr(load_command(name), "commands", None)
        if short_help is not None:
            listed |= {f"{name} {sub}" for sub in group} if group else {name}
    assert len(CASES) >= 100 and listed <= covered, listed - covered


def test_a_non_finite_number_in_a_result_is_an_error_naming_where():
    """Overflow and NaN anywhere in a result are an error (exit 2, one line), never printed as numbers."""
    import math

    from pokerlab.cli.common import print_json
    from pokerlab.errors import NonFiniteResultError

    for bad in (math.nan, math.inf, -math.inf):
        with pytest.raises(NonFiniteResultError, match=r"non-finite number at players\[1\]\.equity"):
            print_json({"players": [{"equity": 0.5}, {"equity": bad}], "elapsed_s": 0.1})
