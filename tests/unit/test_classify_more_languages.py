"""Translation asks and their look-alikes in languages the generator has no frames for:
recognised by the rules for what is certain (the verb in each language, the language name in
the case its grammar puts a target in), not by phrasing statistics. Sentences written for this
test; none comes from an evaluation set."""

from __future__ import annotations

import re

import pytest

from router.classify import Classifier
from router.classify.config import RecognitionConfig
from router.classify.languages import LanguageNames

# (request, the target language the rules must name)
ASKS = [
    ("Fordítsd le angolra: Holnap reggel indulunk.", "English"),  # Hungarian, sublative
    ("Käännä englanniksi: Missä on lähin apteekki?", "English"),  # Finnish, translative
    ("এই বাক্যটি ইংরেজিতে অনুবাদ করুন: আমি কাল বাজারে যাব।", "English"),  # Bengali
    ("இதை ஆங்கிலத்திற்கு மொழிபெயர்க்கவும்: நான் நாளை வருவேன்.", "English"),  # Tamil, dative
    ("תרגם לאנגלית: אני אוהב לבשל בערב.", "English"),  # Hebrew, prefixed "to"
    ("Μετάφρασε στα αγγλικά: Καλημέρα σε όλους.", "English"),
    ("Tradu în germană: Unde este gara?", "German"),  # Romanian
    ("Prevedi na engleski: Gdje je najbliža ljekarna?", "English"),  # Croatian
    ("Преведи на английски: Къде е гарата?", "English"),  # Bulgarian
    ("Oversæt til engelsk: Hvor ligger stationen?", "English"),  # Danish
    ("Tradueix a l'anglès: On és l'estació?", "English"),  # Catalan
    ("თარგმნე ინგლისურად: სად არის სადგური?", "English"),  # Georgian
    ("हे वाक्य इंग्रजीत भाषांतर करा: मी उद्या येईन.", "English"),  # Marathi, locative
    ("Isalin sa Ingles: Saan ang istasyon ng tren?", "English"),  # Filipino
    ("ይህን ወደ እንግሊዝኛ ተርጉም: ነገ እመጣለሁ።", "English"),  # Amharic
    ("Išversk į anglų kalbą: Kur yra stotis?", "English"),  # Lithuanian
    ("اس جملے کا انگریزی میں ترجمہ کریں: میں کل آؤں گا۔", "English"),  # Urdu
    ("Přelož do angličtiny: Kde je nádraží?", "English"),  # Czech, genitive
]

# "How do you say … in ⟨language⟩?" with no translation verb: the target comes from the
# name's case or preposition.
SAYS = [
    ("Hogy mondják németül azt, hogy köszönöm szépen?", "German"),
    ('Miten sanotaan englanniksi "hyvää huomenta"?', "English"),
    ('Jak se řekne "dobrou noc" do angličtiny?', "English"),
    ('Jak se řekne anglicky "dobrou chuť"?', "English"),  # the adverb
    ("Kako se kaže 'hvala' na engleskom?", "English"),
    ('Как се казва "котка" на английски?', "English"),
    ('Cum se spune "mulțumesc" în engleză?', "English"),
    ('Πώς λέγεται "καλημέρα" στα αγγλικά;', "English"),  # final sigma casefolds to σ
    ('איך אומרים "תודה רבה" באנגלית?', "English"),
    ('Com es diu "bon dia" en anglès?', "English"),
    ('Paano sabihin ang "salamat" sa Ingles?', "English"),
    ('"ধন্যবাদ" ইংরেজিতে কীভাবে বলে?', "English"),
    ('"நன்றி" ஆங்கிலத்தில் எப்படி சொல்வது?', "English"),
    ('"धन्यवाद" इंग्रजीत कसे म्हणतात?', "English"),
    ('"شکریہ" کو انگریزی میں کیسے کہتے ہیں؟', "English"),
    ('Як сказати "дякую" англійською?', "English"),
]

# The same languages, asking for something else: judging a translation, writing *in* the
# language, questions about it.
LOOK_ALIKES = [
    "Helyes ez a fordítás? 'I am cold' = 'Hideg vagyok'",
    "এই অনুবাদটি কি সঠিক? 'Good morning' — 'সুপ্রভাত'",
    "இந்த மொழிபெயர்ப்பு சரியா? 'Thank you' = 'நன்றி'",
    "האם התרגום הזה נכון? 'Good night' = 'לילה טוב'",
    "Je li ovaj prijevod točan: 'See you soon' = 'Vidimo se uskoro'?",
    "Er denne oversættelse korrekt? 'Good luck' = 'Held og lykke'",
    "বাংলা ভাষায় কতজন মানুষ কথা বলে?",
    "தமிழில் ஒரு கவிதை எழுதுங்கள்",
    "Írj egy rövid verset angolul a tengerről.",
    "Kirjoita lyhyt runo englanniksi merestä.",
    "כתוב שיר קצר באנגלית על הים",
    "Mennyire nehéz megtanulni a japán nyelvet?",
    "Koliko ljudi govori hrvatski jezik?",
    "Каква е историята на българския език?",
    "Hvor mange mennesker taler dansk?",
    "Jak dlouho trvá naučit se angličtinu?",
    "ইংরেজি শেখার সবচেয়ে ভালো উপায় কী?",
    "Ce înseamnă cuvântul „dor” în limba română?",
    # "how do you say" about tact, in the asker's own language
    "Hogy vagy ma?",
    "Miten sanotaan ei kohteliaasti suomeksi ilman että loukkaa?",
    "Jak se řekne česky, že nesouhlasím, aniž bych byl nezdvořilý?",
    "איך אומרים לא בנימוס לבוס?",
    "Cum se spune că cineva e leneș fără să fii nepoliticos?",
]


@pytest.fixture(scope="module")
def classifier() -> Classifier:
    routes = {"qa": RecognitionConfig(), "translation": RecognitionConfig(signals="translation")}
    return Classifier(routes, "qa")


@pytest.mark.parametrize(("text", "target"), ASKS)
def test_ask_recognised_by_the_rules(classifier: Classifier, text: str, target: str) -> None:
    decision = classifier.classify_text(text)
    assert decision.route == "translation", decision
    assert decision.target_language == target, decision
    assert "translation verb" in decision.reason, decision  # a rule decided, not the model


@pytest.mark.parametrize(("text", "target"), SAYS)
def test_say_recognised(classifier: Classifier, text: str, target: str) -> None:
    decision = classifier.classify_text(text)
    assert decision.route == "translation", decision
    assert decision.target_language == target, decision


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alike_is_qa(classifier: Classifier, text: str) -> None:
    assert classifier.classify_text(text).route == "qa"


@pytest.fixture(scope="module")
def names() -> LanguageNames:
    return LanguageNames()


@pytest.mark.parametrize(
    ("text", "language", "case"),
    [
        ("fordítsd le angolra", "English", "into"),
        ("mondd németül", "German", "in"),
        ("sano se englanniksi", "English", "in"),
        ("ইংরেজিতে বলুন", "English", "in"),
        ("ஆங்கிலத்திற்கு மாற்று", "English", "into"),
        ("תרגם לאנגלית", "English", "into"),
        ("כתוב באנגלית", "English", "in"),
        ("přelož do angličtiny", "English", ""),
        ("kako se kaže na engleskom", "English", "in"),
    ],
)
def test_case_forms(names: LanguageNames, text: str, language: str, case: str) -> None:
    found = names.mentions(text, list(re.finditer(r"\S+", text)))
    assert [(m.language, m.case) for m in found] == [(language, case)]


@pytest.mark.parametrize(
    "text",
    [
        "saya suka kopi dan teh",  # Malay "and", Hungarian's name for Danish
        "ez lett a vége",  # Hungarian "became", its name for Latvian
        "quiero ir a la playa",  # Spanish "to go"
        "we flew to portugal and poland",  # countries, not the languages
    ],
)
def test_everyday_words_are_no_language(names: LanguageNames, text: str) -> None:
    assert names.mentions(text, list(re.finditer(r"\S+", text))) == []
