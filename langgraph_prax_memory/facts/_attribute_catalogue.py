"""The attributes of a person the memory knows (issue 38): one place, read by meaning.

Each attribute is the questions it answers ("Where does the user live?") and a few statement
templates in the voices memories come in ("User lives in {X}.", "I work for {X}."), filled
with a couple of values; :class:`~langgraph_prax_memory.facts._attributes.AttributeModel`
embeds them with the memory's own model and reads a statement's attribute as the question it
answers (session 14; the templates tell an end from a statement, and a statement in their
form reads surely). A **single-valued** attribute holds one value at a time (a newer value
replaces the older ones); a **many-valued** one only grows. The *ending* templates record a
change that ends a value.

The catalogue names the attributes of a person's life an assistant is told about: where
they live, whom they work for and as what, whom they live with, what they eat and drink, the
tools, devices and services they use one at a time (a phone, a laptop, a mobile network, a
broadband line, an energy supplier, a bank, an email account, a password manager, a
streaming service), where they go for what they go to one place for (a gym, a GP practice,
a dentist, a hairdresser, a supermarket, a child's school), how and when they work, the club
they support, and the many-valued ones (hobbies, languages, pets, allergies, tools per
project, tastes, friends, instruments, sports, children, relatives). It is not a list of the
sentences of any benchmark: an attribute is here because people have one. Template values
are made up and kept apart from the tests' and benchmarks' values.
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
    #: The questions the attribute answers ("Where does the user live?"): what a statement
    #: sets is read by the question it answers, whatever its values and its other words.
    questions: tuple[str, ...] = ()


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
        questions=(
            "Where does the user live?",
            "Which city or town is the user's home in?",
        ),
    ),
    Attribute(
        "employer",
        True,
        (
            "User works at {X}.",
            "I work for {X}.",
            "User's employer is {X}.",
            "User started a new job at {X}.",
            "User works as a {X}.",
            "User got promoted to {X}.",
            "User joined {X} last month.",
        ),
        ("Siemens", "a small bakery", "the city council", "Acme", "nurse", "sales manager"),
        (
            "User quit the job at {X}.",
            "User left {X}.",
            "User was laid off from {X}.",
            "I handed in my notice at {X}.",
        ),
        questions=("What is the user's job?", "Where does the user work?"),
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
        questions=(
            "Who is the user's partner?",
            "Who is the user dating or married to?",
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
        questions=(
            "What diet does the user follow?",
            "Does the user eat meat or fish?",
        ),
    ),
    Attribute(
        "editor",
        True,
        ("User's code editor is {X}.", "I write code in {X}.", "User switched to {X} for coding."),
        ("VS Code", "Vim", "Emacs"),
        questions=("Which code editor does the user use?",),
    ),
    Attribute(
        "operating_system",
        True,
        ("User's laptop runs {X}.", "I use {X} as my operating system.", "User moved to {X}."),
        ("Linux", "macOS", "Windows 11"),
        questions=("Which operating system does the user's computer run?",),
    ),
    Attribute(
        "phone",
        True,
        ("User's phone is a {X}.", "I have an {X}.", "User got a new {X} phone."),
        ("iPhone 15", "Pixel 8", "Samsung Galaxy"),
        questions=("What model of phone does the user have?",),
    ),
    Attribute(
        "manager",
        True,
        ("User's manager is {X}.", "User reports to {X}.", "My boss is {X}."),
        ("Deepa", "Mark Olsen"),
        questions=(
            "Who is the user's boss or manager?",
            "Who runs the user's team at work?",
        ),
    ),
    Attribute(
        "timezone",
        True,
        ("User is in the {X} time zone.", "User's timezone is {X}."),
        ("Central European", "Pacific"),
        questions=("Which time zone is the user in?",),
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
        questions=(
            "What does the user usually drink?",
            "What is the user's usual hot drink?",
        ),
    ),
    Attribute(
        "commute",
        True,
        ("User commutes by {X}.", "User gets to work by {X}.", "I take the {X} to the office."),
        ("bike", "train", "car"),
        questions=("How does the user get to work?",),
    ),
    Attribute(
        "car",
        True,
        ("User drives a {X}.", "User's car is a {X}.", "I bought a {X}."),
        ("Toyota Corolla", "Tesla Model 3"),
        ("User sold the {X}.",),
        questions=("What car does the user drive?",),
    ),
    Attribute(
        "gym",
        True,
        ("User trains at {X}.", "User's gym is {X}.", "I have a membership at {X}."),
        ("PureGym", "the YMCA"),
        ("User cancelled the {X} membership.",),
        questions=("Which gym does the user go to?",),
    ),
    Attribute(
        "bank",
        True,
        ("User banks with {X}.", "User's bank is {X}.", "I moved my account to {X}."),
        ("Monzo", "HSBC"),
        questions=("Which bank does the user bank with?",),
    ),
    Attribute(
        "doctor",
        True,
        ("User's GP is Dr {X}.", "User's doctor is {X}.", "I see Dr {X} at the practice."),
        ("Patel", "Okafor"),
        questions=(
            "Who is the user's doctor?",
            "Which GP practice is the user registered with?",
        ),
    ),
    Attribute(
        "child_school",
        True,
        ("User's son goes to {X}.", "User's daughter attends {X}.", "The kids are at {X}."),
        ("St Mary's primary", "Hillside Academy"),
        questions=("Which school does the user's child go to?",),
    ),
    # many-valued: a new value adds, nothing is replaced
    Attribute(
        "hobby",
        False,
        ("User enjoys {X}.", "User took up {X}.", "I've got into {X} lately."),
        ("pottery", "bouldering", "birdwatching"),
        questions=("What are the user's hobbies?",),
    ),
    Attribute(
        "language",
        False,
        ("User speaks {X}.", "User is learning {X}.", "I'm taking {X} classes."),
        ("Spanish", "Japanese"),
        questions=("What languages does the user speak?",),
    ),
    Attribute(
        "pet",
        False,
        ("User has a dog called {X}.", "User adopted a cat named {X}.", "Our new puppy is {X}."),
        ("Biscuit", "Miso"),
        ("User's dog {X} died.", "Our cat {X} passed away."),
        questions=("What pets does the user have?",),
    ),
    Attribute(
        "allergy",
        False,
        ("User is allergic to {X}.", "I can't eat {X}.", "User has a {X} allergy."),
        ("peanuts", "penicillin", "shellfish"),
        questions=("What is the user allergic to?",),
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
        questions=("Which tools or technologies does the user use for a project?",),
    ),
    Attribute(
        "taste",
        False,
        ("User's favourite {X} is blue.", "User likes {X} a lot.", "I'm really into {X}."),
        ("colour", "jazz", "spicy food"),
        questions=("What does the user like?",),
    ),
    Attribute(
        "friend",
        False,
        ("User's friend {X} is a nurse.", "I met a new friend, {X}.", "{X} is User's best friend."),
        ("Omar", "Lena"),
        questions=("Who are the user's friends?",),
    ),
    Attribute(
        "work_location",
        True,
        ("User works from {X}.", "User is in the office {X}.", "I work {X} now."),
        ("home", "five days a week", "remotely"),
        questions=("Does the user work from home or in the office?",),
    ),
    Attribute(
        "work_schedule",
        True,
        ("User works {X}.", "User is on the {X} rota.", "I do {X} shifts."),
        ("nights", "early", "weekend"),
        questions=("What shifts or hours does the user work?",),
    ),
    Attribute(
        "mobile_network",
        True,
        ("User's phone contract is with {X}.", "I'm on {X} for my mobile."),
        ("Lebara", "Tesco Mobile"),
        questions=(
            "Which mobile network is the user on?",
            "Who is the user's phone contract with?",
        ),
    ),
    Attribute(
        "broadband",
        True,
        ("User's broadband is with {X}.", "We get our internet from {X}."),
        ("Hyperoptic", "Plusnet"),
        questions=("Who provides the user's home broadband?",),
    ),
    Attribute(
        "energy_supplier",
        True,
        ("User's energy supplier is {X}.", "We get our gas and electricity from {X}."),
        ("EDF", "Ovo"),
        questions=("Who supplies the user's gas and electricity?",),
    ),
    Attribute(
        "email",
        True,
        ("User's email is with {X}.", "I use {X} for email."),
        ("Outlook", "iCloud Mail"),
        questions=("Which email service does the user use?",),
    ),
    Attribute(
        "password_manager",
        True,
        ("User keeps their passwords in {X}.", "I use {X} as my password manager."),
        ("KeePass", "Dashlane"),
        questions=("Where does the user keep their passwords?",),
    ),
    Attribute(
        "supermarket",
        True,
        ("User does the weekly shop at {X}.", "I get my groceries from {X}."),
        ("Lidl", "Waitrose"),
        questions=("Where does the user do their grocery shopping?",),
    ),
    Attribute(
        "hairdresser",
        True,
        ("User gets their hair cut by {X}.", "My hairdresser is {X}."),
        ("Dana at Snips", "the barber on Main Street"),
        questions=("Who cuts the user's hair?",),
    ),
    Attribute(
        "dentist",
        True,
        ("User's dentist is {X}.", "I go to {X} for my teeth."),
        ("Dr Lind", "the Smile Clinic"),
        questions=("Who is the user's dentist?",),
    ),
    Attribute(
        "laptop",
        True,
        ("User's laptop is a {X}.", "I work on a {X}."),
        ("Dell XPS", "Lenovo Yoga"),
        questions=("What laptop does the user have?",),
    ),
    Attribute(
        "alcohol",
        True,
        ("User drinks {X}.", "User has a glass of {X} most evenings."),
        ("red wine", "beer"),
        ("User has given up alcohol.", "User stopped drinking {X}."),
        questions=("Does the user drink alcohol?",),
    ),
    Attribute(
        "streaming",
        True,
        ("User watches everything on {X}.", "We subscribe to {X}."),
        ("Netflix", "Disney+"),
        questions=("Which streaming service does the user subscribe to?",),
    ),
    Attribute(
        "football_club",
        True,
        ("User supports {X}.", "I have a season ticket for {X}."),
        ("Celtic", "Everton"),
        questions=("Which football club does the user support?",),
    ),
    Attribute(
        "instrument",
        False,
        ("User plays the {X}.", "I'm learning the {X}."),
        ("piano", "violin"),
        questions=("What instruments does the user play?",),
    ),
    Attribute(
        "sport",
        False,
        ("User plays {X}.", "I do {X} twice a week."),
        ("tennis", "rugby"),
        questions=("What sports does the user do?",),
    ),
    Attribute(
        "child",
        False,
        ("User's son is called {X}.", "Our daughter {X} turned five."),
        ("Leo", "Maya"),
        questions=("Who are the user's children?",),
    ),
    Attribute(
        "relative",
        False,
        ("User's sister {X} lives nearby.", "My uncle {X} is visiting."),
        ("Anna", "Ravi"),
        questions=("Who are the user's relatives?",),
    ),
)
