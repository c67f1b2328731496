"""Writes the example data the README's code runs on (every file in examples/ but hyp.txt,
ref1.txt and ref2.txt, which are hand-written). Everything here is made up for fastamfm --
an airline's customer-service chat -- from the templates below; nothing comes from a
corpus. Deterministic: rerunning it rewrites the same files.

    python3 examples/make_examples.py

- ``context.txt``: the customer's message each line of ``hyp.txt`` answers;
- ``systems/{A,B,C,D}.txt``: four "systems" answering the same 40 customer messages
  (``systems/context.txt``), with two references each (``systems/ref1.txt``, ``ref2.txt``)
  and a made-up human rating per system (``systems/human.tsv``): A answers closely, B
  helpfully but loosely, C generically, D off the point;
- ``ratings.jsonl``: every system response with a made-up 1-5 rating, its references and
  context (``fastamfm fit``, ``LearnedScorer.fit``);
- ``corpus.txt``: 1,080 sentences of such chat (every turn of the dialogues, the messages and
  the references), shuffled, one a line (``AMFM.train``, ``fastamfm train``);
- ``dialogues.txt``: 240 dialogues of four turns, one turn a line, a blank line between
  dialogues (``fastamfm train --deep`` / ``--evaluator``).
"""
from __future__ import annotations

import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
CITIES = ["boston", "denver", "chicago", "seattle", "miami", "dallas", "atlanta", "phoenix", "portland", "austin"]
NAMES = ["maria", "james", "li", "sofia", "omar", "anna", "david", "priya", "lucas", "emma"]

# Each situation: the customer's message, two references, and the four systems' answers
# (A close to the references, B helpful but loose, C generic, D beside the point).
SITUATIONS = [
    ("my flight to {city} has been delayed for three hours , what can i do ?",
     "sorry about the delay to {city} , i can rebook you on the next flight or book you a meal voucher .",
     "we apologise for the delay , let me look at earlier flights to {city} for you .",
     "sorry about the delay , i can rebook you on an earlier flight to {city} .",
     "delays happen , please check the app for the new departure time .",
     "thanks for reaching out , we are happy to help .",
     "our lounges offer free coffee and snacks ."),
    ("my bag did not arrive in {city} , who do i talk to ?",
     "so sorry your bag did not arrive , please send us your file reference and we will trace it .",
     "we are sorry about your bag , the baggage desk in {city} can open a trace for you .",
     "sorry your bag did not arrive , send us the file reference and we will trace it .",
     "please go to the baggage desk , they handle missing bags .",
     "thanks for your message , we will look into it .",
     "you can add a second bag when you book online ."),
    ("can i change my seat on tomorrow's flight to {city} ?",
     "yes , you can change your seat in the app or i can do it for you now .",
     "of course , tell me which seat you would like on the flight to {city} .",
     "yes , you can change your seat in the app , or i can change it now .",
     "seats can be chosen online up to a day before you fly .",
     "thanks for reaching out , we are happy to help .",
     "our flights to {city} leave every morning ."),
    ("i was charged twice for my ticket to {city} , can you refund one ?",
     "sorry for the double charge , please send us your booking code and we will refund it .",
     "we apologise , i will check your booking and refund the second charge .",
     "sorry about the double charge , send us your booking code and we will refund it .",
     "refunds take five to seven days to show on your card .",
     "thanks for your message , we will look into it .",
     "we have great fares to {city} this month ."),
    ("hi , this is {name} , my flight to {city} was cancelled , what now ?",
     "sorry {name} , i have rebooked you on the next flight to {city} , the details are in your email .",
     "so sorry {name} , let me find you another flight to {city} today .",
     "sorry {name} , i can rebook you on the next flight to {city} .",
     "when a flight is cancelled you can rebook or ask for a refund .",
     "thanks for reaching out , we are happy to help .",
     "{name} , have you joined our loyalty program ?"),
    ("is there wifi on the flight to {city} ?",
     "yes , there is wifi on the flight to {city} , you can buy a pass on board .",
     "yes , wifi is available on that flight , passes are sold on board .",
     "yes , there is wifi on the flight to {city} , you can buy a pass .",
     "most of our planes have wifi .",
     "thanks for your message , we will look into it .",
     "please arrive at the airport two hours early ."),
    ("can i bring my dog on the flight to {city} ?",
     "yes , small dogs can travel in the cabin in a carrier , please add the pet to your booking .",
     "you can , please add your dog to the booking and bring a carrier that fits under the seat .",
     "yes , small dogs can fly in the cabin , please add the pet to your booking .",
     "pets are allowed on some flights , see our pet policy .",
     "thanks for reaching out , we are happy to help .",
     "{city} is lovely in the spring ."),
    ("the gate for my flight to {city} changed and nobody told me",
     "sorry about that , your flight to {city} now leaves from gate twelve , boarding starts soon .",
     "we apologise for the missing notice , the new gate for {city} is twelve .",
     "sorry , the flight to {city} now leaves from gate twelve .",
     "gate changes are shown on the screens in the airport .",
     "thanks for your message , we will look into it .",
     "you can earn miles on every flight ."),
    ("i missed my connection to {city} because my first flight was late",
     "sorry you missed the connection , i have booked you on the next flight to {city} at no cost .",
     "so sorry , since the delay was ours we will rebook you to {city} for free .",
     "sorry you missed it , i can book you on the next flight to {city} at no cost .",
     "please see an agent at the transfer desk .",
     "thanks for reaching out , we are happy to help .",
     "our app shows your boarding pass ."),
    ("how much does a second checked bag cost to {city} ?",
     "a second checked bag to {city} costs forty dollars when you add it online .",
     "it is forty dollars online for a second bag on flights to {city} .",
     "a second bag to {city} costs forty dollars online .",
     "bag fees depend on your fare , see our website .",
     "thanks for your message , we will look into it .",
     "{city} has two airports ."),
]
RATINGS = {"A": 4.3, "B": 3.6, "C": 2.6, "D": 1.7}
SPREAD = {"A": (4, 5), "B": (3, 4), "C": (2, 3), "D": (1, 2)}

OPENERS = [
    "hi , my flight to {city} is delayed , can you help ?", "my bag did not make it to {city} .",
    "i want to change my seat on the flight to {city} .", "i was charged twice for my {city} ticket .",
    "my flight to {city} was cancelled this morning .", "is there wifi on the plane to {city} ?",
    "can my dog fly with me to {city} ?", "the gate for {city} changed and i did not know .",
    "i missed my connection to {city} .", "what does a second bag to {city} cost ?",
]
AGENT_REPLIES = [
    "sorry to hear that , {name} , let me check your booking .", "i am sorry , can you send me your booking code ?",
    "happy to help , which flight are you on ?", "let me look into that for you right away .",
    "thanks for waiting , i have found your booking to {city} .", "i understand , i will sort this out for you .",
]
FOLLOW_UPS = [
    "it is flight {number} , booked under {name} .", "the code is {code} .", "thank you , please be quick .",
    "ok , what are my options ?", "i need to be in {city} tonight .", "can i get a refund instead ?",
]
CLOSINGS = [
    "done , you are on the {hour} flight to {city} , the details are in your email .",
    "i have opened a trace for your bag , we will call you when it arrives in {city} .",
    "your seat is now {seat} , have a good flight to {city} .", "the refund is on its way , it takes a few days .",
    "you are rebooked to {city} at no cost , sorry again for the trouble .",
    "yes , a pass costs eight dollars on board , enjoy the flight .",
]


def _fill(template: str, rng: random.Random, city: str, name: str) -> str:
    return template.format(city=city, name=name, number=rng.randint(100, 999), code="".join(
        rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ") for _ in range(6)), hour=rng.choice(["noon", "six pm", "eight pm"]),
        seat=f"{rng.randint(3, 30)}{rng.choice('ACDF')}")


def main() -> None:
    rng = random.Random(37)
    (HERE / "systems").mkdir(exist_ok=True)
    # The three hand-written responses of hyp.txt: the customer's message each answers.
    (HERE / "context.txt").write_text(
        "hi , what is the status of my flight ?\tit is the morning flight to boston\n"
        "my bag did not arrive in denver\tit has been two days now\n"
        "are we boarding yet ? i cannot hear the announcements\n", encoding="utf-8")

    contexts, refs, systems, rated = [], [[], []], {s: [] for s in RATINGS}, []
    for i in range(40):
        situation = SITUATIONS[i % len(SITUATIONS)]
        city, name = CITIES[(i * 3) % len(CITIES)], NAMES[i % len(NAMES)]
        message, ref1, ref2, *answers = (t.format(city=city, name=name) for t in situation)
        contexts.append(message)
        refs[0].append(ref1)
        refs[1].append(ref2)
        for system, answer in zip(RATINGS, answers):
            systems[system].append(answer)
            low, high = SPREAD[system]
            rated.append({"hyp": answer, "rating": rng.randint(low, high), "refs": [ref1, ref2],
                          "context": [message], "system": system})
    (HERE / "systems" / "context.txt").write_text("".join(c + "\n" for c in contexts), encoding="utf-8")
    for k, column in enumerate(refs, 1):
        (HERE / "systems" / f"ref{k}.txt").write_text("".join(r + "\n" for r in column), encoding="utf-8")
    for system, lines in systems.items():
        (HERE / "systems" / f"{system}.txt").write_text("".join(h + "\n" for h in lines), encoding="utf-8")
    (HERE / "systems" / "human.tsv").write_text("system\trating\n" + "".join(
        f"{s}\t{r}\n" for s, r in RATINGS.items()), encoding="utf-8")
    (HERE / "ratings.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rated), encoding="utf-8")

    dialogues = []
    for i in range(240):
        city, name = rng.choice(CITIES), rng.choice(NAMES)
        turns = [rng.choice(OPENERS), rng.choice(AGENT_REPLIES), rng.choice(FOLLOW_UPS), rng.choice(CLOSINGS)]
        dialogues.append([_fill(t, rng, city, name) for t in turns])
    (HERE / "dialogues.txt").write_text("\n".join("".join(t + "\n" for t in d) for d in dialogues),
                                        encoding="utf-8")
    sentences = [t for d in dialogues for t in d] + contexts + refs[0] + refs[1]
    rng.shuffle(sentences)
    (HERE / "corpus.txt").write_text("".join(s + "\n" for s in sentences), encoding="utf-8")


if __name__ == "__main__":
    main()
