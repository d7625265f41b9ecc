"""The background set the cosine scale of a model is measured on: written for this project.

Generic questions and the statements that answer them, on everyday topics (no benchmark
data). Each question paired with its own statement is a *related* pair; paired with the
statements of every other topic it is an *unrelated* pair — 60 topics give 60 related and
3,540 unrelated pairs from 120 texts.
"""

from __future__ import annotations

__all__ = ["BACKGROUND_PAIRS"]

#: (question, statement that answers it), one everyday topic each.
BACKGROUND_PAIRS: tuple[tuple[str, str], ...] = (
    ("Which editor theme does she prefer?", "She always switches her editor to a dark theme."),
    ("What did he have for breakfast?", "He ate scrambled eggs and toast this morning."),
    ("When does the pharmacy close?", "The pharmacy on the corner closes at eight in the evening."),
    ("How old is their daughter?", "Their daughter turned seven last spring."),
    (
        "Where did they spend the summer holiday?",
        "They rented a cabin by a lake in Norway for July.",
    ),
    ("What instrument is he learning?", "He has been taking cello lessons every Tuesday."),
    ("Which programming language does the team use?", "The team writes its services in Go."),
    ("Is she allergic to anything?", "She is allergic to peanuts and carries an epinephrine pen."),
    ("What is the name of their dog?", "Their golden retriever is called Biscuit."),
    ("How does he get to work?", "He cycles to the office unless it rains."),
    (
        "What kind of music does she listen to?",
        "She mostly listens to jazz records from the fifties.",
    ),
    ("When is the project deadline?", "The report has to be delivered by the end of March."),
    ("Which team does he support?", "He has supported the local football club since childhood."),
    ("What is her job?", "She works as a nurse in the children's ward."),
    ("Where was he born?", "He was born in a small town near Lisbon."),
    ("What book is she reading?", "She is halfway through a novel about a lighthouse keeper."),
    ("How much does the subscription cost?", "The plan costs twelve dollars a month."),
    ("Which airline did they fly with?", "They booked the flight with a budget carrier."),
    ("What is wrong with the car?", "The car's brakes squeal and need new pads."),
    (
        "What does he drink in the afternoon?",
        "Every afternoon he makes himself a pot of green tea.",
    ),
    ("Why was the meeting cancelled?", "The meeting was called off because the manager was ill."),
    ("What sport does she play?", "She plays tennis at the club on weekends."),
    ("Where do they keep the spare key?", "The spare key is under the flower pot by the door."),
    ("What is the weather like today?", "It is cold and windy with rain expected this afternoon."),
    ("Which hotel are they staying at?", "They checked into a small hotel near the station."),
    ("How did he hurt his knee?", "He twisted his knee while skiing in February."),
    (
        "What does the error message say?",
        "The server logs show a timeout when connecting to the database.",
    ),
    ("What is her favourite food?", "She loves spicy Thai curry more than anything."),
    (
        "Who is looking after the kids tonight?",
        "Their grandmother is babysitting the children tonight.",
    ),
    ("What did they buy for the kitchen?", "They bought a new espresso machine for the kitchen."),
    ("When is his birthday?", "His birthday is on the ninth of November."),
    ("What language is she studying?", "She practises Japanese with an app every evening."),
    ("How many people work at the company?", "The company employs about two hundred people."),
    (
        "What plants grow in the garden?",
        "Tomatoes and basil grow in the raised beds of the garden.",
    ),
    ("Which phone does he use?", "He still uses an old phone with a cracked screen."),
    ("Where is the nearest hospital?", "The closest hospital is ten minutes away by car."),
    ("What film did they watch?", "They watched an old black-and-white detective film."),
    ("How does she take her coffee?", "She drinks her coffee black without sugar."),
    ("What is the password policy?", "Passwords must be at least twelve characters long."),
    ("Where does the river flow?", "The river runs south through the valley into the sea."),
    ("How long is the commute?", "The train ride to the office takes forty minutes."),
    ("Which museum did they visit?", "They spent the afternoon in the natural history museum."),
    ("What does he do on Sundays?", "On Sundays he bakes bread and calls his parents."),
    ("What colour is the new sofa?", "The new sofa in the living room is dark green."),
    ("Why is the website slow?", "The website is slow because the image files are huge."),
    ("Who won the chess tournament?", "A teenager from the local club won the chess tournament."),
    ("What medication is he taking?", "He takes a blood pressure pill every morning."),
    ("Where are they moving to?", "They are moving to an apartment in the city centre."),
    ("What happened at the wedding?", "At the wedding the best man gave a very long speech."),
    ("How is the bread made?", "The dough rests overnight before it is baked in a hot oven."),
    ("What is the budget for the trip?", "They set aside two thousand euros for the trip."),
    ("Which course is she teaching?", "She teaches an introductory statistics course this term."),
    ("What game are the kids playing?", "The kids are building a castle in a block-building game."),
    ("What is he afraid of?", "He has been afraid of spiders since he was small."),
    ("When did the store open?", "The bookstore opened its doors in 1998."),
    ("What is the printer problem?", "The printer keeps jamming on the second page."),
    (
        "Where did she learn to swim?",
        "She learned to swim in the sea near her grandparents' house.",
    ),
    ("What volunteer work does he do?", "He volunteers at the food bank twice a month."),
    (
        "How did the experiment turn out?",
        "The experiment failed because the samples were contaminated.",
    ),
    ("What is on the shopping list?", "The list says milk, apples, rice and dish soap."),
)
