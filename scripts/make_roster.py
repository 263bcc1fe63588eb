"""Regenerate the assumed Sixteen Samurai roster.

Output: simcli/games/content/sixteen-samurai/standard.toml.

The rulebook prints each card's ability total but only two cards' ratings. Every other card
gets a rating split chosen by a repeatable rule: among all (POWER, SPEED, ARMOR, KARMA) with
each rating 1-4 summing to the card's total, take the one picked by a random generator
seeded with the SHA-256 of the card's name. The output is kept as data: edit the TOML, not
this script, to correct a card.

Usage: python scripts/make_roster.py > simcli/games/content/sixteen-samurai/standard.toml
"""

import hashlib
import itertools
import random

GROUPS = {
    6: ["Fobus Dustwalker", "Irie the Spectator", "Vander the Unlucky", "Oku the Plain",
        "Whit the Fool", "Andon Sacredeye"],
    7: ["Rokujou the Sixth", "Ando Fireshadow", "Sakura Petalwalker", "Milon Riverdown",
        "Kaze Sundirge", "Kujo Fourstriker", "Suda Firesplitter", "Matsui Warchaser",
        "Ulrick Graves", "Yashiro Featherbloom", "Goju Rubywood", "Oda Sagewater",
        "Harada Bannerbringer", "Jakob Four Fingers", "Atai Cloudcrest", "Shinjou Trueshade"],
    8: ["Doi Flintfury", "Ka'ron Wildwillow", "Kalia Cindertrap", "Jumana Jadehunter",
        "Myrrah Proudheart", "Princess Hawkfire", "Aoi Runemoon", "Prince Doragon",
        "Konishi Stagfeather", "Nimue Amberclaw", "Chlora Fernweb", "Garen Runeflare"],
    9: ["Hirata Grayward", "Ikoma Nightbreaker", "Itami Nightbreaker", "Eve Dewpike",
        "Kojan Summerlance", "Chikara Prideshine", "Thorne Magnus", "Vera Terrasky",
        "Grinning Mask", "Kyogoku the Gambler", "Tozawa Lightbrush", "Yamana Skykeeper",
        "Kodama Longbrim", "Natsu Swiftpin", "Ikari Glorypeak", "Tsuki Lunablade",
        "Bull Irongut", "Ina Morningthorn", "Fiola Strongsworn", "Enomoto Sharpgaze",
        "Rizumu Windsong", "Theid the Bear", "Tidus Emeraldmoon", "Iefyr Dreamleaf"],
    10: ["Sensei Darkwalker", "Edmund Greybeard", "Baxter Blackeye", "Oceana Fadedancer",
         "Nina Silentglade", "Akai Titanfury", "Tyrus and Taji", "Opax Nightstalker",
         "Rosa Crowley", "Kitsune Snowsinger", "Thancred Ironskull", "Nicholai Darkmore"],
}
PRINTED = {"Kalia Cindertrap": (10, (4, 2, 1, 3)), "Fobus Dustwalker": (6, (2, 1, 1, 2))}


def split(name: str, total: int) -> tuple[int, ...]:
    """The repeatable rating split of a card."""
    options = [c for c in itertools.product(range(1, 5), repeat=4) if sum(c) == total]
    seed = int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big")
    return random.Random(seed).choice(options)


def main() -> None:
    """Print the roster TOML."""
    print('''# Sixteen Samurai roster "standard": ASSUMED content.
# The rulebook lists 70 samurai by printed ability total (6, 7, 9, 10, and an unmarked block
# read as 8) and prints the ratings of two cards only (Kalia Cindertrap, Fobus Dustwalker).
# Every other split below was made by scripts/make_roster.py (a repeatable rule) and is
# marked assumed = true. If you own the game, correct the cards and set assumed = false,
# or copy this file and run with --content your-roster.toml.

[content]
game = "sixteen-samurai"
name = "standard"
version = 1
assumed = true
description = "70 samurai from the rulebook roster; totals printed (unmarked block read \
as 8, Kalia 10), splits assumed"

[dice]
faces = 8        # DECISION: eight-sided dice (the sample rolls show 8s and nothing above)
uma_value = 7    # Uma: "rolled" two dice showing this value

[clan]
size = 16        # samurai drafted per player
hand = 5         # hand size in the Clan Conflict

[roster]
# One card per line: name, ratings (1-4 each), printed total, assumed.
samurai = [''')
    for total, names in GROUPS.items():
        for name in names:
            if name in PRINTED:
                t, r = PRINTED[name]
                assumed = "false"
            else:
                t, r = total, split(name, total)
                assumed = "true"
            esc = name.replace('"', '\\"')
            print(f'  {{ name = "{esc}", power = {r[0]}, speed = {r[1]}, armor = {r[2]}, '
                  f'karma = {r[3]}, total = {t}, assumed = {assumed} }},')
    print("]")


if __name__ == "__main__":
    main()
