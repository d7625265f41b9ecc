"""The attributes of a person the memory knows (issue 38): one place, read by meaning.

Each attribute is a few statement templates in the voices memories come in ("User lives in
{X}.", "I work for {X}."), filled with a couple of values; :class:`~langgraph_prax_memory.
facts._attributes.AttributeModel` embeds them with the memory's own model and reads a
statement's attribute as its nearest template. A **single-valued** attribute holds one value
at a time (a newer value replaces the older ones); a **many-valued** one only grows. The
*ending* templates record a change that ends a value.

The catalogue names attributes of a person's life an assistant is told about: where they
live, whom they work for and who manages them, whom they are with, what they eat and
usually drink, how they get to work, the editor, operating system, phone, car, bank and time
zone they have one at a time, where they go for what they go to one place for (a gym, a
doctor, a child's school), and the many-valued ones (hobbies, languages, pets, allergies,
tools per project, tastes, friends). Services it does not name (a mobile network, a
broadband line, an energy supplier, an email account, a password manager) are replaced by
nearness only (:meth:`~langgraph_prax_memory.facts._attributes.AttributeModel.replaces`):
adding them as templates moved no held-out change and lost development ones (docs/
benchmarks.md, session 16). It is not a list of the sentences of any benchmark: an
attribute is here because people have one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = ["ATTRIBUTES", "ENDS", "STATES", "Attribute"]

STATES: Final = "states"
ENDS: Final = "ends"


@dataclass(frozen=True)
class Attribute:
    """An attribute of a person: its name, whether it holds one value, its templates."""

    name: str
    single: bool
    states: tuple[str, ...]
    values: tuple[str, ...]
    ends: tuple[str, ...] = ()


#: The attributes the memory knows. Templates are written in the voices memories come in.
ATTRIBUTES: Final[tuple[Attribute, ...]] = (
    Attribute(
        "home",
        True,
        (
            "User lives in {X}.",
            "I live in {X}.",
            "User's home is in {X}.",
            "User moved to {X}.",
            "User is based in {X} now.",
            "We just moved into a new flat in {X}.",
        ),
        ("Glasgow", "Osaka", "the suburbs of Lyon"),
    ),
    Attribute(
        "employer",
        True,
        (
            "User works at {X}.",
            "I work for {X}.",
            "User's employer is {X}.",
            "User started a new job at {X}.",
            "User joined {X} last month.",
        ),
        ("Siemens", "a small bakery", "the city council"),
        (
            "User quit the job at {X}.",
            "User left {X}.",
            "User was laid off from {X}.",
            "I handed in my notice at {X}.",
        ),
    ),
    Attribute(
        "partner",
        True,
        (
            "User's partner is {X}.",
            "User is dating {X}.",
            "My girlfriend is {X}.",
            "User is married to {X}.",
            "User's boyfriend {X} moved in with them.",
        ),
        ("Sam", "Priya", "Jonas"),
        (
            "User broke up with {X}.",
            "User and {X} split up.",
            "User is divorced from {X}.",
            "I'm single again since {X} and I separated.",
        ),
    ),
    Attribute(
        "diet",
        True,
        (
            "User is {X}.",
            "I eat a {X} diet.",
            "User has gone {X}.",
            "User follows a {X} diet now.",
        ),
        ("vegetarian", "vegan", "pescatarian", "keto"),
        ("User eats meat again.", "I gave up being {X}."),
    ),
    Attribute(
        "editor",
        True,
        ("User's code editor is {X}.", "I write code in {X}.", "User switched to {X} for coding."),
        ("VS Code", "Vim", "Emacs"),
    ),
    Attribute(
        "operating_system",
        True,
        ("User's laptop runs {X}.", "I use {X} as my operating system.", "User moved to {X}."),
        ("Linux", "macOS", "Windows 11"),
    ),
    Attribute(
        "phone",
        True,
        ("User's phone is a {X}.", "I have an {X}.", "User got a new {X} phone."),
        ("iPhone 15", "Pixel 8", "Samsung Galaxy"),
    ),
    Attribute(
        "manager",
        True,
        ("User's manager is {X}.", "User reports to {X}.", "My boss is {X}."),
        ("Deepa", "Mark Olsen"),
    ),
    Attribute(
        "timezone",
        True,
        ("User is in the {X} time zone.", "User's timezone is {X}."),
        ("Central European", "Pacific"),
    ),
    Attribute(
        "usual_drink",
        True,
        (
            "User drinks {X} every morning.",
            "User's usual drink is {X}.",
            "I always order {X}.",
        ),
        ("black coffee", "green tea", "an oat flat white"),
        ("User stopped drinking {X}.", "I quit {X}."),
    ),
    Attribute(
        "commute",
        True,
        ("User commutes by {X}.", "User gets to work by {X}.", "I take the {X} to the office."),
        ("bike", "train", "car"),
    ),
    Attribute(
        "car",
        True,
        ("User drives a {X}.", "User's car is a {X}.", "I bought a {X}."),
        ("Toyota Corolla", "Tesla Model 3"),
        ("User sold the {X}.",),
    ),
    Attribute(
        "gym",
        True,
        ("User trains at {X}.", "User's gym is {X}.", "I have a membership at {X}."),
        ("PureGym", "the YMCA"),
        ("User cancelled the {X} membership.",),
    ),
    Attribute(
        "bank",
        True,
        ("User banks with {X}.", "User's bank is {X}.", "I moved my account to {X}."),
        ("Monzo", "HSBC"),
    ),
    Attribute(
        "doctor",
        True,
        ("User's GP is Dr {X}.", "User's doctor is {X}.", "I see Dr {X} at the practice."),
        ("Patel", "Okafor"),
    ),
    Attribute(
        "child_school",
        True,
        ("User's son goes to {X}.", "User's daughter attends {X}.", "The kids are at {X}."),
        ("St Mary's primary", "Hillside Academy"),
    ),
    # many-valued: a new value adds, nothing is replaced
    Attribute(
        "hobby",
        False,
        ("User enjoys {X}.", "User took up {X}.", "I've got into {X} lately."),
        ("pottery", "bouldering", "birdwatching"),
    ),
    Attribute(
        "language",
        False,
        ("User speaks {X}.", "User is learning {X}.", "I'm taking {X} classes."),
        ("Spanish", "Japanese"),
    ),
    Attribute(
        "pet",
        False,
        ("User has a dog called {X}.", "User adopted a cat named {X}.", "Our new puppy is {X}."),
        ("Biscuit", "Miso"),
        ("User's dog {X} died.", "Our cat {X} passed away."),
    ),
    Attribute(
        "allergy",
        False,
        ("User is allergic to {X}.", "I can't eat {X}.", "User has a {X} allergy."),
        ("peanuts", "penicillin", "shellfish"),
    ),
    Attribute(  # a tool per project, per task: many at once
        "tool",
        False,
        (
            "User decided to use {X} for the new project.",
            "User is using {X} for a side project.",
            "I picked {X} for the data pipeline.",
        ),
        ("Rust", "Postgres", "Terraform"),
    ),
    Attribute(
        "taste",
        False,
        ("User's favourite {X} is blue.", "User likes {X} a lot.", "I'm really into {X}."),
        ("colour", "jazz", "spicy food"),
    ),
    Attribute(
        "friend",
        False,
        ("User's friend {X} is a nurse.", "I met a new friend, {X}.", "{X} is User's best friend."),
        ("Omar", "Lena"),
    ),
)
