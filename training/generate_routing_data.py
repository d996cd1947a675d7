# ruff: noqa: E501  (template tables: CJK strings are wider than they look, one per line is unreadable)
"""Generate labelled requests (translation vs qa) for the classifier's learned tier.

    python training/generate_routing_data.py OUT.jsonl [--per-template N] [--seed S]

Systematic variation, not a corpus: every template family is filled from pools of target
languages, peoples, phrases, payloads and questions, then varied by politeness, casing,
punctuation and code-switching. Negatives are the look-alikes the learned tier must reject:
questions *about* languages or translations, writing or answering *in* a language, settings
requests, judging a translation, and "translate" used for code, formulas and units.

Nothing here is copied from the evaluation sets (../shared/eval, tests/unit/data): templates
were written from the label definitions in ../shared/eval/README.md and issue 18's list of
kinds.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from native_frames import generic_qa, native_own_meaning, native_qa, native_translation

Fill = Callable[[random.Random], str]

# -- pools ---------------------------------------------------------------------------------

# fmt: off
LANGS = [
    "French", "German", "Spanish", "Italian", "Portuguese", "Japanese", "Korean", "Chinese",
    "Mandarin", "Cantonese", "Russian", "Arabic", "Hindi", "Turkish", "Dutch", "Polish",
    "Swedish", "Norwegian", "Danish", "Finnish", "Greek", "Hebrew", "Vietnamese", "Thai",
    "Indonesian", "Malay", "Tagalog", "Swahili", "Czech", "Hungarian", "Romanian", "Ukrainian",
    "Persian", "Farsi", "Urdu", "Bengali", "Tamil", "Punjabi", "Irish", "Welsh", "Catalan",
    "Latin", "Hawaiian", "Icelandic", "Serbian", "Croatian", "Bulgarian", "English",
    "Brazilian Portuguese", "Mexican Spanish", "Filipino", "Amharic", "Yoruba", "Zulu",
]
# people / nationality → how requests name them
PEOPLE = [
    "the French", "Germans", "the Spanish", "Italians", "Brazilians", "the Japanese",
    "Koreans", "the Chinese", "Russians", "Mexicans", "the Dutch", "Swedes", "Poles", "Greeks",
    "Turks", "Argentinians", "Egyptians", "Indians", "Israelis", "Vietnamese people",
    "Portuguese people", "Norwegians", "Finns", "Thais", "Iranians", "Colombians",
    "Australians", "Quebecers", "Chileans", "Danes",
]
NATIONALITY = [
    "Mexican", "French", "German", "Brazilian", "Japanese", "Italian", "Spanish", "Russian",
    "Korean", "Chinese", "Dutch", "Greek", "Turkish", "Polish", "Swedish", "Egyptian",
    "Argentinian", "Portuguese", "Vietnamese", "Israeli", "Thai", "Indian", "Iranian",
]
PEOPLE_ONE = [
    "a Frenchman", "a German", "a Spaniard", "an Italian", "a Brazilian", "a Japanese person",
    "a Korean", "a Russian", "a Mexican", "a Dutch person", "a Greek", "a Turk", "a Pole",
    "an Argentinian", "a native speaker of Portuguese", "a Chinese speaker", "an Egyptian",
]
PLACES = [
    "Mexico", "France", "Germany", "Brazil", "Japan", "Italy", "Spain", "Russia", "Korea",
    "China", "the Netherlands", "Greece", "Turkey", "Poland", "Sweden", "Egypt", "Quebec",
    "Argentina", "Portugal", "Vietnam", "Israel", "Thailand", "Iran", "Kenya", "Peru",
]
WORDS = [
    "cat", "dog", "butterfly", "glove", "library", "bicycle", "apple", "water", "bread",
    "cheese", "umbrella", "train station", "airport", "hospital", "friend", "love", "moon",
    "beer", "coffee", "kitchen", "grandmother", "birthday", "sunflower", "squirrel", "key",
    "pharmacy", "receipt", "window", "mountain", "happiness", "deadline", "weekend", "toilet",
    "bathroom", "pineapple", "strawberry", "teacher", "nurse", "homework", "sidewalk",
    "elevator", "ice cream", "turtle", "rabbit", "fork", "spoon", "blanket", "rain", "snow",
]
PHRASES = [
    "thank you", "thank you very much", "good morning", "good night", "I love you",
    "see you tomorrow", "see you later", "where is the bathroom", "how much is this",
    "the check, please", "cheers", "happy birthday", "happy new year", "no problem",
    "I miss you", "excuse me", "nice to meet you", "good luck", "I'm sorry", "I'm lost",
    "where is the train station", "can I have the menu", "I don't understand",
    "do you speak English", "what time is it", "I'm allergic to peanuts", "welcome",
    "congratulations", "get well soon", "bon appetit", "let's go", "I'm hungry", "help",
    "break a leg", "it's raining cats and dogs", "the early bird catches the worm",
    "out of office until Monday", "please call me back", "is this seat taken",
    "one coffee with milk, please", "keep the change", "I'll be late", "merry Christmas",
    "how are you", "my name is Anna", "I'm just looking", "let's call it a day",
    "better late than never", "have a nice weekend", "where can I buy a ticket",
]
EN_SENTENCES = [
    "The meeting has been moved to Thursday afternoon.",
    "Your order has shipped and should arrive within three days.",
    "Please keep your receipt until the end of the trip.",
    "The museum is closed on Mondays.",
    "I forgot my keys at the office.",
    "We are looking forward to seeing you next week.",
    "The train to the airport leaves every fifteen minutes.",
    "Could you send me the report by Friday?",
    "My sister works as a nurse in a small hospital.",
    "The children are playing in the garden.",
    "It will be sunny tomorrow with a light breeze.",
    "Thank you for your patience, we will reply soon.",
    "Breakfast is served from seven to ten.",
    "All visitors must sign in at the front desk.",
    "He has been studying chemistry for three years.",
    "Turn left at the second traffic light.",
    "The battery lasts about ten hours.",
    "This product comes with a two-year warranty.",
    "I would like to book a table for two.",
    "Our office will be closed during the holidays.",
]
FOREIGN = {
    "French": ["Je voudrais un café, s'il vous plaît.", "Il fait beau aujourd'hui.",
               "Où se trouve la gare ?", "Nous partons demain matin.", "Je ne sais pas.",
               "C'est la vie.", "Joyeux anniversaire !"],
    "German": ["Ich habe heute keine Zeit.", "Wo ist der Bahnhof?", "Das Wetter ist schön.",
               "Wir sehen uns morgen.", "Ich bin müde.", "Vielen Dank für Ihre Hilfe."],
    "Spanish": ["¿Dónde está el baño?", "Me gustaría un café.", "Estoy muy cansado.",
                "Nos vemos mañana.", "El perro duerme en el sofá.", "Ya llegué."],
    "Italian": ["Dov'è la stazione?", "Oggi fa molto caldo.", "Ho fame.",
                "Ci vediamo domani.", "Mi piace la pizza."],
    "Portuguese": ["Onde fica o banheiro?", "Eu moro perto da praia.", "Muito obrigado.",
                   "Estou com saudade."],
    "Russian": ["Где находится вокзал?", "Я опоздал на поезд.", "Спасибо за помощь.",
                "Я люблю тебя."],
    "Chinese": ["我明天去北京。", "这个多少钱？", "今天天气很好。", "我很想你。", "谢谢你的帮助。"],
    "Japanese": ["駅はどこですか。", "ありがとうございます。", "お疲れ様です。", "私は学生です。"],
    "Korean": ["감사합니다.", "화장실이 어디예요?", "오늘 날씨가 좋네요.", "사랑해요."],
    "Arabic": ["أين المحطة؟", "شكرا جزيلا.", "صباح الخير.", "أنا جائع."],
    "Hindi": ["मुझे चाय पसंद है।", "आप कैसे हैं?", "धन्यवाद।", "मैं घर जा रहा हूँ।"],
    "Turkish": ["Teşekkür ederim.", "İstasyon nerede?", "Yarın görüşürüz."],
    "Dutch": ["Waar is het station?", "Ik heb honger.", "Dank je wel."],
    "Polish": ["Dziękuję bardzo.", "Gdzie jest dworzec?", "Dzień dobry."],
    "Swedish": ["Var ligger stationen?", "Tack så mycket.", "Jag är trött."],
    "Vietnamese": ["Cảm ơn bạn.", "Nhà ga ở đâu?", "Tôi đói."],
    "Indonesian": ["Terima kasih.", "Di mana stasiun?", "Selamat pagi."],
    "Persian": ["ممنون.", "ایستگاه کجاست؟", "من خسته هستم."],
    "Hebrew": ["תודה רבה.", "איפה התחנה?", "אני רעב."],
    "Greek": ["Ευχαριστώ πολύ.", "Πού είναι ο σταθμός;", "Καλημέρα."],
}
FOREIGN_WORDS = [
    "Schadenfreude", "je ne sais quoi", "saudade", "wabi-sabi", "hygge", "carpe diem",
    "déjà vu", "dolce far niente", "Fernweh", "mañana", "c'est la vie", "ikigai", "hasta luego",
    "arigatou", "inshallah", "Gemütlichkeit", "lagom", "sobremesa", "Feierabend", "ça va",
    "bella figura", "Weltschmerz", "zeitgeist", "habibi", "namaste", "prost", "salud",
]
EN_WORDS_ASKED = [
    "serendipity", "ubiquitous", "ASAP", "FYI", "ephemeral", "procrastinate", "gaslighting",
    "quid pro quo", "ROI", "the cloud", "a blockchain", "an API", "irony", "a haiku", "GDP",
]
QUESTIONS = [
    "What is the capital of Australia?", "How do I reset my router?",
    "Why is the sky blue?", "How many calories are in an egg?",
    "What are the symptoms of the flu?", "Give me a recipe for banana bread.",
    "Explain how a heat pump works.", "Write a haiku about autumn.",
    "What is the difference between a virus and a bacterium?",
    "How long should I boil an egg?", "Suggest a name for my bakery.",
    "Write a Python function that reverses a list.", "What causes inflation?",
    "How can I sleep better?", "Recommend a good book about history.",
    "What is the tallest mountain in Africa?", "How do vaccines work?",
    "Plan a three-day trip to Rome.", "What is machine learning?",
    "Summarise the causes of the First World War.", "Is coffee bad for your heart?",
    "How do I make my resume stand out?", "What should I feed a puppy?",
    "Explain recursion to a beginner.", "How far is the moon from the earth?",
    "set an alarm for 6 am", "what's the weather tomorrow", "play some relaxing music",
    "remind me to buy milk", "how do I get to the airport", "book a taxi for 8 pm",
    "what's my account balance", "cancel my meeting at 3", "tell me a joke",
]
OTHER_QUESTIONS = {
    "Chinese": ["高血压患者饮食要注意什么？", "如何提高孩子的学习兴趣？", "请写一首关于春天的诗。",
                "失眠怎么办？", "北京有哪些好玩的地方？", "帮我写一封请假邮件。", "什么是人工智能？",
                "感冒了吃什么药好？", "请总结下面这段文字的要点。", "推荐几本好看的小说。"],
    "Spanish": ["¿Cuál es la capital de Perú?", "Dame una receta de paella.",
                "¿Cómo puedo ahorrar dinero?", "Escribe un cuento corto sobre un gato."],
    "French": ["Quels sont les bienfaits du sport ?", "Comment faire une quiche ?",
               "Écris une lettre de motivation.", "Pourquoi le ciel est-il bleu ?"],
    "German": ["Wie funktioniert ein Kühlschrank?", "Was kann ich gegen Kopfschmerzen tun?",
               "Schreib mir ein Gedicht über den Herbst.", "Wie hoch ist die Zugspitze?"],
    "Japanese": ["東京のおすすめの観光地は？", "風邪を早く治す方法を教えて。", "カレーの作り方を教えてください。"],
    "Korean": ["김치찌개 끓이는 법 알려줘.", "서울에서 가볼 만한 곳 추천해 줘.", "잠을 잘 자는 방법은?"],
    "Russian": ["Как приготовить борщ?", "Почему небо голубое?", "Что такое инфляция?"],
    "Arabic": ["ما هي عاصمة فرنسا؟", "كيف أتعلم البرمجة؟", "ما فوائد الشاي الأخضر؟"],
    "Hindi": ["भारत की राजधानी क्या है?", "अच्छी नींद के लिए क्या करें?", "योग के क्या फायदे हैं?"],
    "Portuguese": ["Qual é a capital do Canadá?", "Como fazer pão de queijo?"],
    "Italian": ["Come si prepara la carbonara?", "Qual è il fiume più lungo d'Italia?"],
    "Turkish": ["Sağlıklı beslenmek için ne yapmalıyım?", "Ankara'da nereleri gezebilirim?"],
    "Dutch": ["Hoe maak ik pannenkoeken?", "Wat is de hoofdstad van België?"],
    "Polish": ["Jak ugotować pierogi?", "Ile kosztuje bilet do Krakowa?"],
    "Persian": ["بهترین راه برای یادگیری ریاضی چیست؟", "پایتخت ایران کجاست؟"],
    "Hebrew": ["מה הבירה של צרפת?", "איך מכינים חומוס?"],
    "Vietnamese": ["Làm sao để giảm cân?", "Thủ đô của Pháp là gì?"],
    "Indonesian": ["Bagaimana cara membuat nasi goreng?", "Apa ibu kota Jepang?"],
    "Swedish": ["Hur bakar man kanelbullar?", "Vad är huvudstaden i Norge?"],
}
# fmt: on


def pick(rng: random.Random, items: list[str]) -> str:
    return items[rng.randrange(len(items))]


def foreign_lang(rng: random.Random) -> str:
    return pick(rng, list(FOREIGN))


def foreign(rng: random.Random) -> str:
    return pick(rng, FOREIGN[foreign_lang(rng)])


def target_for(rng: random.Random, avoid: str = "English") -> str:
    while True:
        lang = pick(rng, LANGS)
        if lang != avoid:
            return lang


def quoted(rng: random.Random, text: str) -> str:
    style = rng.random()
    if style < 0.45:
        return f'"{text}"'
    if style < 0.6:
        return f"'{text}'"
    if style < 0.7:
        return f"“{text}”"
    return text


def long_text(rng: random.Random) -> str:
    count = rng.choice((1, 1, 2, 4, 8))
    return " ".join(rng.choice(EN_SENTENCES) for _ in range(count))


def long_foreign(rng: random.Random) -> tuple[str, str]:
    lang = foreign_lang(rng)
    count = rng.choice((1, 1, 2, 3))
    return lang, " ".join(rng.choice(FOREIGN[lang]) for _ in range(count))


# -- variation -----------------------------------------------------------------------------

POLITE_HEAD = [
    "", "", "", "please ", "pls ", "hey, ", "quick question: ", "sorry to bother you, ",
    "hi! ", "ok so ", "I was wondering, ", "help: ", "hello, ", "excuse me, ",
]
POLITE_TAIL = ["", "", "", " please", " thanks", " thx", " for me", " :)", " asap"]


def vary(rng: random.Random, text: str) -> str:
    """Politeness, casing and punctuation variants of a request."""
    if text[:1].isascii() and rng.random() < 0.35:
        head = pick(rng, POLITE_HEAD)
        text = head + (text[0].lower() + text[1:] if head else text)
    if rng.random() < 0.3:
        text = text.rstrip("?.!") + pick(rng, POLITE_TAIL) + rng.choice(("", "?", ".", "!"))
    roll = rng.random()
    if roll < 0.25:
        text = text.lower()
    elif roll < 0.3:
        text = text.upper() if len(text) < 60 else text
    elif roll < 0.55 and text:
        text = text[0].upper() + text[1:]
    return text


# -- translation templates (English frame) -----------------------------------------------------


def t_explicit(rng: random.Random) -> str:
    lang, ph = target_for(rng), pick(rng, PHRASES + EN_SENTENCES)
    q = quoted(rng, ph)
    return pick(rng, [
        f"translate {q} into {lang}", f"Translate to {lang}: {ph}",
        f"Can you translate {q} to {lang}?", f"I need this translated into {lang}: {ph}",
        f"{q} - translate to {lang}", f"translate this into {lang}\n\n{ph}",
        f"How would you translate {q} into {lang}?", f"Give me the {lang} translation of {q}",
        f"What's the {lang} translation for {q}?", f"translate pls: {q} -> {lang.lower()}",
        f"Please translate the following text into {lang}:\n{long_text(rng)}",
        f"Translate into {lang}, keeping the tone informal: {ph}",
        f"{lang} translation please: {ph}", f"Could you help me translate {q} to {lang}?",
        f"translate {q} to {lang} and {target_for(rng)}",
        f"Translate this into any {lang} dialect and tell me which one you used: {q}",
        f"Translate into {lang} for a client email:\n\n{long_text(rng)}",
        f"I'd like a translation of this into {lang}: {ph}",
        f"Translate the following product description into {lang}: {long_text(rng)}",
    ])


def t_from_foreign(rng: random.Random) -> str:
    src, text = long_foreign(rng)
    q = quoted(rng, text)
    dst = target_for(rng, src)
    return pick(rng, [
        f"Translate from {src}: {q}", f"translate this to english: {q}",
        f"What does this mean in English? {q}", f"Can you translate my friend's message? {q}",
        f"Translate from {src} to {dst}: {text}", f"{src} to {dst}: {text}",
        f"{src.lower()} -> {dst.lower()}: {text}", f"English please: {text}",
        f"In English: {text}", f"{text} (to {dst})", f"{text}\n\nTranslate to {dst}.",
        f"My grandmother wrote this in {src}, what does it say? {q}",
        f"what is she saying? {q}", f"I got this message: {q} — what does it mean?",
        f"{q} what does this mean", f"{q}? meaning in English?", f"Into {dst} please: {q}",
    ])


def t_ni_task(rng: random.Random) -> str:
    src, text = long_foreign(rng)
    dst = target_for(rng, src)
    if rng.random() < 0.5:
        src, text, dst = "English", long_text(rng), target_for(rng)
    return pick(rng, [
        f"In this task, you are given a sentence in {src}. Your task is to translate it into "
        f"{dst}.\n\n{text}",
        f"You are given a sentence in {src}. Your job is to translate the {src} sentence into "
        f"{dst}.\n\n{text}",
        f"Given a sentence in {src}, provide an equivalent translation in {dst} that retains "
        f"the same meaning.\n\n{text}",
        f"This task is about translating a given {src} sentence to {dst}.\n\n{text}",
        f"In this task, you are given a text in {src}. Convert it into the {dst} language, "
        f"keeping numbers as they are.\n\nInput: {text}\nOutput:",
        f"Translate the given {src} text into {dst}. Do not translate names.\n\n{text}",
        f"Definition: Given a {src} sentence, generate its {dst} version.\nInput: {text}",
        f"Your task is to produce the same sentence in {dst}.\n\n{text}",
        f"Rewrite the following {src} passage in {dst}.\n\n{text}",
        f"Provide the {dst} equivalent of the following sentence.\n{text}",
    ])


def t_word_in(rng: random.Random) -> str:
    lang, word, ph = target_for(rng), pick(rng, WORDS), pick(rng, PHRASES)
    q = quoted(rng, ph)
    return pick(rng, [
        f"{word} in {lang}", f"{word} in {lang}?", f"{q} in {lang}?", f"{ph} in {lang.lower()}",
        f"what's the {lang} word for {word}", f"whats the {lang.lower()} word for a {word}",
        f"What is the {lang} for {q}?", f"{lang} for {q}", f"{lang.lower()} for {word}",
        f"the {lang} word for {word}?", f"{lang} word for {word}",
        f"need the {lang.lower()} for {q}", f"Give me the {lang} for {q}.",
        f"What's {q} in {lang}?", f"what is {word} in {lang}",
        f"Just the {lang} for {q}, no explanation.", f"is there a {lang} word for {word}?",
        f"What's the {lang} term for {q}?", f"the {lang.lower()} name for a {word}?",
    ])


def t_say(rng: random.Random) -> str:
    lang, ph = target_for(rng), pick(rng, PHRASES)
    q = quoted(rng, ph)
    return pick(rng, [
        f"How do you say {q} in {lang}?", f"how do i say {ph} in {lang}",
        f"how to say {ph} in {lang.lower()}", f"In {lang}, {q} is said how?",
        f"In {lang}, how do you say {q}?", f"How is {q} said in {lang}?",
        f"How is {q} written in {lang}?", f"say {q} in {lang}",
        f"teach me how to say {q} in {lang}", f"How can I tell someone {q} in {lang}?",
        f"What's the best way to say {q} in {lang}?", f"help me say {q} in {lang}",
        f"Could you help me express {q} in {lang}?", f"I want to say {q} in {lang}",
        f"how would I say {q} in {lang}", f"How do I ask {q} in {lang}?",
        f"I'm visiting {pick(rng, PLACES)} next week - how do I say {q} in {lang}?",
        f"what would be {q} in {lang}", f"{lang}: how do you say {q}?",
        f"say {q} in {rng.choice(('five', 'three', 'several', 'ten', 'different'))} languages",
    ])


def t_people(rng: random.Random) -> str:
    ph, word = pick(rng, PHRASES), pick(rng, WORDS)
    q = quoted(rng, ph)
    people, nat, one, place = (pick(rng, PEOPLE), pick(rng, NATIONALITY), pick(rng, PEOPLE_ONE),
                               pick(rng, PLACES))
    return pick(rng, [
        f"How do {people} say {q}?", f"how do {people} say {ph}",
        f"What do {people} call a {word}?", f"How would I say {q} if I were {nat}?",
        f"how would i say {ph} if i was {nat.lower()}", f"How would {one} say {q}?",
        f"What would {one} say for {q}?", f"In {place}, how do people say {q}?",
        f"how do people in {place} say {ph}", f"what do they call a {word} in {place}?",
        f"If I were in {place}, what would I say for {q}?",
        f"how do {people} say {q} when they drink?",
    ])


def t_meaning(rng: random.Random) -> str:
    fw = pick(rng, FOREIGN_WORDS)
    q = quoted(rng, fw)
    return pick(rng, [
        f"What does {q} mean?", f"what does {fw} mean", f"What's the meaning of {q} in English?",
        f"meaning of {q}?", f"What does {q} mean in English?", f"{q} means what?",
        f"My friend texted me {q}, what does it mean?", f"what is {q} in english",
        f"What's the English for {q}?", f"English for {q}?", f"what's {q} mean",
        f"Someone said {q} to me, what did they mean?",
    ])


def t_putin(rng: random.Random) -> str:
    lang, ph = target_for(rng), pick(rng, PHRASES + EN_SENTENCES)
    q = quoted(rng, ph)
    return pick(rng, [
        f"Put this in {lang} for me: {q}", f"Can you give me the {lang} version of {q}?",
        f"I need this sentence in {lang}: {q}", f"Rewrite this in {lang}: {ph}",
        f"Convert this sentence to {lang}: {q}", f"Give me the {lang} equivalent of {q}.",
        f"Express {q} in {lang}.", f"How would this read in {lang}? {q}",
        f"Could you render this in {lang} for our website?\n\n{long_text(rng)}",
        f"Write this in {lang}: {q}", f"{lang} version please: {ph}",
        f"Can you say this in {lang}? {q}", f"Produce the same text in {lang}:\n{long_text(rng)}",
        f"change this text into {lang}: {ph}", f"turn this into {lang}: {q}",
        f"make this {lang}: {q}", f"{ph}\n\nsame in {lang}?", f"{q} in {lang} please",
        f"{lang} please: {ph}", f"To {lang}: {ph}", f"{ph} ({lang.lower()})",
    ])


# -- translation templates (other frames, and code-switching) ------------------------------------

# fmt: off
FRAMES_T: dict[str, list[str]] = {
    "Chinese": [
        "请把这句话翻译成{zh}：{p}", "{q}用{zh}怎么说？", "{q}这句话用{zh}怎么表达？", "帮我翻译一下：{p}",
        "请问{q}{zh}应该怎么说？", "{q}的{zh}是什么？", "把下面的话翻成{zh}：{p}", "{q}翻译成{zh}",
        "这句话用{zh}怎么讲：{p}", "帮我把这句话改成{zh}：{p}", "{q}换成{zh}怎么说？", "{w}的{zh}单词是什么？",
        "{zh}里{q}叫什么？", "请将以下内容译成{zh}。\n{p}", "麻烦翻一下这段：{p}", "{q}是什么意思？",
        "用{zh}怎么说{q}？", "{q} {zh}怎么写", "{q}用{zh}怎么讲比较地道？",
    ],
    "Japanese": [
        "{q}を{ja}に翻訳してください。", "{q}は{ja}で何と言いますか？", "{q}って{ja}でどう言えばいいですか？",
        "次の文を{ja}に訳して：{p}", "{q}を{ja}にして。", "{q}の意味を教えて。", "{ja}で{q}はなんて言うの？",
    ],
    "Korean": [
        "{q}를 {ko}로 번역해 주세요.", "{q}는 {ko}로 뭐라고 해요?", "{q} {ko}로 어떻게 말해요?",
        "이 문장 {ko}로 번역해줘: {p}", "{q}가 무슨 뜻이에요?",
    ],
    "Spanish": [
        "Traduce al {es}: {p}", "¿Cómo se dice {q} en {es}?", "¿Qué significa {q}?",
        "¿Me traduces esto al {es}? {q}", "Ponlo en {es}: {q}", "¿Qué quiere decir {q} en {es}?",
        "Necesito esto en {es}: {q}", "Pásame esto al {es}: {p}", "Oye, how do you say {q} in {en}?",
    ],
    "French": [
        "Traduis en {fr} : {p}", "Comment dit-on {q} en {fr} ?", "Que veut dire {q} ?",
        "Tu peux me le dire en {fr} ? {q}", "Merci de traduire ce texte en {fr} : {p}",
        "Comment on dit {q} en {fr} ?", "En {fr} : {q}",
    ],
    "German": [
        "Übersetze bitte ins {de_acc}: {p}", "Wie sagt man {q} auf {de}?", "Was heißt {q} auf {de}?",
        "Was bedeutet {q}?", "Auf {de} bitte: {p}", "Kannst du das ins {de_acc} übersetzen? {q}",
    ],
    "Italian": ["Traduci in {it}: {p}", "Come si dice {q} in {it}?", "Cosa significa {q}?",
                "Mi traduci questo in {it}? {q}"],
    "Portuguese": ["Traduza para o {pt}: {p}", "Como se diz {q} em {pt}?", "O que significa {q}?",
                   "Pode traduzir para o {pt}? {q}"],
    "Russian": ["Переведи на {ru_acc}: {p}", "Как сказать {q} по-{ru_adv}?", "Что значит {q}?",
                "Помоги перевести на {ru_acc}: {q}", "Как будет {q} по-{ru_adv}?"],
    "Arabic": ["ترجم هذه الجملة إلى {ar}: {p}", "كيف أقول {q} ب{ar}؟", "ما معنى {q}؟",
               "ممكن تترجم لي هذا إلى {ar}؟ {q}"],
    "Hindi": ["इस वाक्य का {hi} में अनुवाद करें: {p}", "{q} को {hi} में क्या कहते हैं?",
              "{q} को {hi} में कैसे बोलते हैं?", "{q} का मतलब क्या है?", "{q} इसे {hi} में कैसे लिखेंगे?"],
    "Turkish": ["Bunu {tr_dat} çevir: {p}", "{q} {tr_loc} nasıl söylenir?", "{q} ne demek?"],
    "Dutch": ["Vertaal naar het {nl}: {p}", "Hoe zeg je {q} in het {nl}?", "Wat betekent {q}?"],
    "Polish": ["Przetłumacz na {pl_acc}: {p}", "Jak powiedzieć {q} po {pl_adv}?", "Co znaczy {q}?"],
    "Swedish": ["Översätt till {sv}: {p}", "Vad heter {q} på {sv}?", "Hur säger man {q} på {sv}?"],
    "Vietnamese": ["Dịch sang tiếng {vi}: {p}", "{q} tiếng {vi} là gì?", "{q} nghĩa là gì?"],
    "Indonesian": ["Tolong terjemahkan ke bahasa {id}: {p}", "Apa bahasa {id}nya {q}?",
                   "Bagaimana mengatakan {q} dalam bahasa {id}?"],
    "Persian": ["این جمله را به {fa} ترجمه کن: {p}", "{q} به {fa} چی میشه؟", "معنی {q} چیست؟"],
    "Hebrew": ["תרגם ל{he}: {p}", "איך אומרים {q} ב{he}?", "מה פירוש {q}?"],
}
NAMES: dict[str, list[str]] = {
    "zh": ["英文", "英语", "中文", "日语", "法语", "德语", "韩语", "西班牙语", "俄语", "日文"],
    "ja": ["英語", "中国語", "韓国語", "フランス語", "ドイツ語", "スペイン語"],
    "ko": ["영어", "일본어", "중국어", "프랑스어", "독일어", "스페인어"],
    "es": ["inglés", "francés", "alemán", "italiano", "portugués", "japonés", "chino"],
    "en": ["English", "German", "French", "Japanese"],
    "fr": ["anglais", "espagnol", "allemand", "italien", "japonais", "chinois"],
    "de": ["Englisch", "Französisch", "Spanisch", "Italienisch", "Japanisch", "Russisch"],
    "de_acc": ["Englische", "Französische", "Spanische", "Italienische", "Japanische"],
    "it": ["inglese", "francese", "tedesco", "spagnolo", "giapponese"],
    "pt": ["inglês", "espanhol", "francês", "alemão", "japonês"],
    "ru_acc": ["английский", "немецкий", "французский", "испанский", "японский"],
    "ru_adv": ["английски", "немецки", "французски", "испански", "японски"],
    "ar": ["الإنجليزية", "الفرنسية", "الألمانية", "الإسبانية", "اليابانية"],
    "hi": ["अंग्रेज़ी", "हिंदी", "फ्रेंच", "जापानी"],
    "tr_dat": ["İngilizceye", "Almancaya", "Fransızcaya", "İspanyolcaya"],
    "tr_loc": ["İngilizcede", "Almancada", "Fransızcada", "Türkçede"],
    "nl": ["Engels", "Frans", "Duits", "Spaans"],
    "pl_acc": ["angielski", "niemiecki", "francuski", "hiszpański"],
    "pl_adv": ["angielsku", "niemiecku", "francusku", "hiszpańsku"],
    "sv": ["engelska", "tyska", "franska", "spanska"],
    "vi": ["Anh", "Nhật", "Pháp", "Trung"],
    "id": ["Inggris", "Jepang", "Prancis", "Jerman"],
    "fa": ["انگلیسی", "فرانسوی", "آلمانی", "عربی"],
    "he": ["אנגלית", "צרפתית", "ספרדית", "יפנית"],
}
# fmt: on
CJK_WORDS = ["苹果", "图书馆", "蝴蝶", "手套", "截止日期", "周末", "火车站"]


# Asks for a meaning: the phrase must be foreign to the frame, or it is a question about a word.
MEANING_MARKS = (
    "意思", "意味", "뜻", "significa", "veut dire", "bedeutet", "значит", "معنى", "मतलब",
    "ne demek", "betekent", "znaczy", "nghĩa", "معنی", "פירוש", "quiere decir",
)
OWN_NAMES = {"中文", "हिंदी"}


def fill_frame(rng: random.Random, template: str, frame_lang: str) -> str:
    own = FOREIGN.get(frame_lang)
    meaning = any(mark in template for mark in MEANING_MARKS)
    # The payload: an English phrase (code-switching) or a sentence in the frame's language.
    own_payload = bool(own) and not meaning and rng.random() < 0.4
    if own and own_payload:
        payload = pick(rng, own)
    else:
        payload = pick(rng, PHRASES + EN_SENTENCES + FOREIGN_WORDS)
    values = {
        key: pick(rng, [n for n in names if not (own_payload and n in OWN_NAMES)])
        for key, names in NAMES.items()
    }
    values |= {"p": payload, "q": quoted(rng, payload), "w": pick(rng, CJK_WORDS)}
    if frame_lang == "Chinese" and rng.random() < 0.5:  # Chinese quote marks
        values["q"] = f"“{payload}”"
    return template.format(**values)


def t_other_frame(rng: random.Random) -> str:
    frame = pick(rng, list(FRAMES_T))
    return fill_frame(rng, pick(rng, FRAMES_T[frame]), frame)


# -- qa templates ------------------------------------------------------------------------------


def q_general(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return pick(rng, QUESTIONS)
    return pick(rng, OTHER_QUESTIONS[pick(rng, list(OTHER_QUESTIONS))])


def q_say_same_language(rng: random.Random) -> str:
    """"How do you say no politely": the asker's own language, no translation."""
    return pick(rng, [
        "How do you say no to a coworker without sounding rude?",
        "What's the best way to say sorry to a friend?",
        "How do I tell my boss I'm quitting?", "how do I politely decline an invitation",
        "How should I say thank you to my teacher in a card?",
        "What do you say at a funeral?", "what should I say in a job interview",
        "How do I ask for a raise?", "How do I tell my parents I failed an exam?",
        "What's a nice way to say someone is wrong?", "how to say goodbye to a coworker",
        "What do people say when someone sneezes?", "How do I greet a client in an email?",
        "what do you call a group of crows?", "What do you call a baby kangaroo?",
        "What's another word for happy?", "Give me a word for very tired.",
        "What's the word for the smell after rain?", "what is the word for fear of heights",
        "How do you pronounce 'quinoa'?", "How is 'Worcestershire' pronounced?",
        "What's the plural of cactus?", "What's the opposite of generous?",
        f"What does {pick(rng, EN_WORDS_ASKED)} mean?",
        f"what does {pick(rng, EN_WORDS_ASKED)} stand for",
        f"Define {pick(rng, EN_WORDS_ASKED)}.", f"Use {pick(rng, EN_WORDS_ASKED)} in a sentence.",
        f"What's a synonym for {pick(rng, ['big', 'fast', 'smart', 'sad', 'important'])}?",
        "How do I say no to my kids without yelling?", "How do I express my feelings better?",
    ])


def q_about_language(rng: random.Random) -> str:
    lang, other, place = target_for(rng), target_for(rng), pick(rng, PLACES)
    return pick(rng, [
        f"How many people speak {lang}?", f"Is {lang} hard to learn?",
        f"Is {lang} harder than {other} for an English speaker?",
        f"What's the best way to learn {lang}?", f"What are the best apps for learning {lang}?",
        f"How long does it take to become fluent in {lang}?", f"Which language is spoken in {place}?",
        f"What language do they speak in {place}?", f"Which countries speak {lang}?",
        f"Why is {lang} grammar so hard?", f"When do you use the subjunctive in {lang}?",
        f"How many tenses does {lang} have?", f"Is {lang} written left to right?",
        f"Explain the {lang} case system.", f"What's the origin of the {lang} language?",
        f"Recommend a good {lang}-{other} dictionary.", f"Can you speak {lang}?",
        f"Do you understand {lang}?", f"How is the {lang} alphabet organised?",
        f"Quiz me on {lang} food vocabulary.", f"Give me a list of common {lang} verbs.",
        f"What's the difference between {lang} and {other}?",
        f"Help me study for my {lang} exam.", f"Is {lang} related to {other}?",
        f"What is the most spoken language in {place}?", f"Why do {pick(rng, PEOPLE)} speak {lang}?",
        f"What does the word {quoted(rng, pick(rng, WORDS))} come from? Is it {lang}?",
        f"What's the history of the {lang} language?", f"List five {lang} cheeses." if lang in
        ("French", "Italian", "Dutch", "Swiss") else f"List five famous {lang} writers.",
        f"book a table at a {lang.lower()} restaurant", f"I'm cooking {lang} food tonight, ideas?",
        f"What is {quoted(rng, pick(rng, PHRASES))} called, is it an idiom?",
        f"Why is {quoted(rng, pick(rng, FOREIGN_WORDS))} so hard to translate?",
        f"What language is this? {quoted(rng, foreign(rng))}",
        f"Which language is {quoted(rng, foreign(rng))} written in?",
        f"Identify the language: {foreign(rng)}",
        f"Is {quoted(rng, foreign(rng))} grammatically correct?",
        f"Correct the grammar in this {lang} sentence: {quoted(rng, foreign(rng))}",
        f"Why is it {quoted(rng, pick(rng, FOREIGN_WORDS))} and not something else?",
        f"Explain the grammar of this sentence: {quoted(rng, foreign(rng))}",
        f"Count the words in this sentence: {quoted(rng, foreign(rng))}",
        f"Transliterate {quoted(rng, foreign(rng))} into Latin letters.",
        f"Write {quoted(rng, foreign(rng))} in Roman script.",
        f"Convert this to pinyin: {pick(rng, FOREIGN['Chinese'])}",
        f"Paraphrase this sentence in simpler English: {quoted(rng, pick(rng, EN_SENTENCES))}",
        f"Rewrite this in formal English: {pick(rng, EN_SENTENCES)}",
        f"Is {quoted(rng, pick(rng, PHRASES))} correct English?",
    ])


def q_write_in(rng: random.Random) -> str:
    lang, question = target_for(rng), pick(rng, QUESTIONS)
    thing = pick(rng, ["a poem", "a short story", "an email", "a joke", "a dialogue",
                       "a product description", "a cover letter", "a tweet", "a haiku",
                       "three sentences about Paris", "a birthday message"])
    return pick(rng, [
        f"Write {thing} in {lang}.", f"Answer in {lang}: {question}",
        f"Respond only in {lang}: {question}", f"Please reply in {lang} from now on.",
        f"Can you reply in {lang} from now on?", f"Tell me a joke in {lang}.",
        f"Describe your favourite city in {lang}.", f"Compose {thing} in {lang} about the sea.",
        f"Write a story in simple {lang} for beginners.",
        f"Summarize this text in {lang}:\n{long_text(rng)}",
        f"Generate a title in {lang} for this article:\n{long_text(rng)}",
        f"Answer the following question in {lang}. {question}",
        f"{question} Please answer in {lang}.", f"Explain photosynthesis in {lang}.",
        f"Write a {lang} dialogue between a waiter and a customer.",
        f"Create {lang} flashcards for kitchen vocabulary.",
        f"Let's practise: talk to me in {lang} about the weather.",
    ])


def q_settings(rng: random.Random) -> str:
    lang = target_for(rng)
    return pick(rng, [
        f"change my speaking to {lang}", f"switch your language to {lang} from now on",
        f"Set the app language to {lang}.", f"change language to {lang}",
        f"Make {lang} the default language for my account.", f"turn on {lang} subtitles",
        f"How do I change the keyboard language on my phone to {lang}?",
        f"Please talk to me in {lang} from now on.", f"I want you to only speak {lang} with me.",
        f"Change the language of your answers to {lang}.", f"set my language to {lang.lower()}",
        f"can you change your voice to a {pick(rng, NATIONALITY)} accent",
        f"switch the interface to {lang}", f"How do I turn on subtitles in {lang} on Netflix?",
        f"use {lang} for all replies", f"change the voice assistant's language to {lang}",
        f"can i change your language to {lang.lower()}", f"speak {lang.lower()} please",
    ])


def q_translation_topic(rng: random.Random) -> str:
    lang, src = target_for(rng), foreign_lang(rng)
    sent = pick(rng, FOREIGN[src])
    return pick(rng, [
        f"Is this translation correct? {quoted(rng, sent)} for {quoted(rng, pick(rng, PHRASES))}",
        f"Is {quoted(rng, sent)} a good translation of {quoted(rng, pick(rng, PHRASES))}?",
        f"Check my {lang} translation: {sent}", f"Rate the quality of this translation: {sent}",
        f"Please proofread my {lang} translation of this poem:\n{sent}",
        "What do professional translators charge per word?",
        "Which is better for translating documents, DeepL or Google Translate?",
        f"Write a cover letter for a job as a {lang} translator.",
        "Explain how neural machine translation works.",
        "My translation app keeps crashing, how do I fix it?",
        f"Why is Google Translate bad at {lang}?", "What is the hardest language to translate?",
        f"How do I become a certified {lang} translator?",
        "Is it hard to translate poetry?", f"What are the best translation tools for {lang}?",
        f"Does this {lang} translation sound natural? {sent}",
        f"Compare these two translations and say which is better:\n1. {sent}\n2. {sent}",
        f"Is {quoted(rng, sent)} the right way to say {quoted(rng, pick(rng, PHRASES))} in {src}?",
        f"Why did the translator use {quoted(rng, pick(rng, FOREIGN_WORDS))} here?",
        f"What are common mistakes when translating from {src} to {lang}?",
    ])


def q_false_translate(rng: random.Random) -> str:
    return pick(rng, [
        "Translate this description into a spreadsheet formula: sum column B where column A "
        "is 'paid'.", "Translate this requirement into a SQL query: list customers with more "
        "than three orders.", "Translate the following pseudocode into Python:\nfor each x in "
        "list: print x", "translate this regex into plain english: ^[a-z]+\\d{2}$",
        "Translate these requirements into user stories:\n- users can log in",
        "Translate 1011 from binary to decimal.", "Convert 5 miles to kilometres.",
        "Convert 50 US dollars to euros.", "convert 100 fahrenheit to celsius",
        "Convert this JSON to YAML: {\"a\": 1}", "Convert this Python code to JavaScript: "
        "def f(x): return x * 2", "Translate this legal jargon into plain English: the party of "
        "the first part shall indemnify…", "translate this recipe's cups into grams",
        "Can you convert this text to uppercase? 'good morning'", "Translate this into Morse "
        "code: SOS", "translate this math word problem into an equation: Tom has 3 apples…",
        "Translate this business plan into a one-page summary.", "Translate my notes into a "
        "bulleted list.", "convert this date to ISO format: 3 March 2024",
        "Turn this paragraph into a table.", "Translate the idea into a logo concept.",
        "Translate this error message for a non-technical user: ECONNREFUSED",
        "Convert this CSV into a markdown table:\nname,age\nAnn,30",
        "Translate this C code into Rust:\nint main() { return 0; }",
        "Translate the following feelings into a song.",
    ])


def q_tasks_about_languages(rng: random.Random) -> str:
    src, text = long_foreign(rng)
    lang = target_for(rng, src)
    en = pick(rng, EN_SENTENCES)
    return pick(rng, [
        f"In this task, you are given a sentence in English and its translation in {src}. "
        f"Determine whether the translation is correct. Answer \"Yes\" or \"No\".\n\n"
        f"English: {en}\n{src}: {text}",
        f"Given a sentence in {src} and a sentence in English, label the pair \"yes\" if the "
        f"English is a faithful translation, otherwise \"no\".\n\n{src}: {text}\nEnglish: {en}",
        f"You are given a multiple-choice question in {src}. Choose the correct answer from A, "
        f"B, C or D.\n\n{text} A. one B. two C. three D. four",
        f"The following question is written in {src}. Answer it with a single word.\n\n{text}",
        f"In this task you will be given a {src} sentence. Classify its sentiment as positive, "
        f"negative or neutral.\n\n{text}",
        f"Given a sentence in {src}, identify the named entities it mentions.\n\n{text}",
        f"You are given a question in {src}. Answer it in {src}.\n\n{text}",
        f"Identify the language of the following sentence.\n\n{text}",
        f"Given a {src} sentence, decide whether it is a question or a statement.\n\n{text}",
        f"In this task, you're given a {src} sentence with a blank. Fill in the blank.\n\n{text}",
        f"Given a question in {src}, generate a paraphrase of it in {src}.\n\n{text}",
        f"In this task, you are given a sentence in {src} and a sentence in English. Decide "
        f"whether they mean the same thing.\n\n{src}: {text}\nEnglish: {en}",
        f"Given an English sentence, classify whether it was machine translated or written by "
        f"a human.\n\n{en}",
        f"Answer the question about the {src} passage. Write your answer in {src}.\n\n{text}",
        f"You are given a sentence in {src}. Classify whether it contains a grammatical error."
        f"\n\n{text}", f"Summarize the following {src} text in one {lang} sentence:\n{text}",
        f"Read the {src} review and decide whether it is positive or negative.\n\n{text}",
        f"Count the nouns in this {src} sentence.\n\n{text}",
        f"Given a sentence in {src}, output the part of speech of its first word.\n\n{text}",
        f"Is the following {src} sentence formal or informal?\n\n{text}",
        f"Generate a question in {lang} whose answer is the following sentence.\n\n{en}",
    ])


# Idioms and words asked about in their own language ("“画蛇添足”是什么意思？"): questions about
# words, not translations.
# fmt: off
OWN_WORDS = {
    "Chinese": ["画蛇添足", "塞翁失马", "内卷", "躺平", "饕餮", "信达雅", "卧薪尝胆", "对牛弹琴", "破釜沉舟"],
    "Japanese": ["木漏れ日", "もったいない", "一期一会", "忖度", "ありがた迷惑"],
    "Spanish": ["sobremesa", "estrenar", "madrugada", "friolero"],
    "French": ["flâner", "dépaysement", "l'esprit de l'escalier", "retrouvailles"],
    "German": ["Fernweh", "Kummerspeck", "Torschlusspanik", "Verschlimmbesserung"],
    "Russian": ["тоска", "почемучка", "авось"],
    "Arabic": ["يا سلام", "إن شاء الله", "طرب"],
}
OWN_MEANING = {
    "Chinese": ["{q}是什么意思？", "{q}这个成语出自哪里？", "{q}这个词怎么读？", "请解释{q}的含义。", "{q}用在什么场合？"],
    "Japanese": ["{q}の意味は何ですか？", "{q}はどういう場面で使いますか？", "{q}の語源を教えてください。"],
    "Spanish": ["¿Qué significa {q}?", "¿De dónde viene la palabra {q}?", "¿Cómo se usa {q} en una frase?"],
    "French": ["Que signifie {q} ?", "D'où vient l'expression {q} ?"],
    "German": ["Was bedeutet {q}?", "Woher kommt das Wort {q}?"],
    "Russian": ["Что значит {q}?", "Откуда слово {q}?"],
    "Arabic": ["ما معنى {q}؟", "ما أصل كلمة {q}؟"],
}
PLACE_NAMES = ["pizza hut", "olive garden", "noodle express", "starbucks", "mexican", "japanese",
               "thai palace", "the ritz", "central library", "burger king", "ikea", "sushi bar"]
QUOTED_QUERIES = {
    "English": ["where is the nearest {q}?", "what is the rating of {q}?", "find me a {q} restaurant",
                "what are the opening hours of {q}", "book a table at {q}", "what's the price range of {q}?"],
    "Italian": ["dove si trova il {q} più vicino?", "qual è la valutazione di {q}?"],
    "Finnish": ["missä on lähin {q} ravintola?", "mikä on ravintolan {q} hintahaarukka?"],
    "Arabic": ["أين يوجد أقرب مطعم {q}؟", "ما هو تقييم {q}؟"],
    "Spanish": ["¿dónde está el {q} más cercano?", "reserva una mesa en {q}"],
    "German": ["wo ist das nächste {q}?", "wie sind die öffnungszeiten von {q}?"],
    "Chinese": ["离我最近的{q}在哪里？", "{q}的营业时间是几点？"],
    "Japanese": ["一番近い{q}はどこですか？"],
    "Turkish": ["en yakın {q} nerede?"],
    "Polish": ["gdzie jest najbliższy {q}?"],
}
SAME_LANGUAGE_TASKS = [
    "请将以下句子改写为更简单的语言：{zhq}", "把这句话改成被动句：{zhp}", "请给这段话加上标点：{zhp}",
    "请用一句话概括：{zhp}", "请把这段文字改得更正式一些：{zhp}", "找出下面句子中的错别字：{zhp}",
    "Rewrite this sentence more formally: {enq}", "Paraphrase: {enp}", "Make this shorter: {enp}",
    "Fix the spelling in this sentence: {enp}", "Put this sentence in the passive voice: {enp}",
    "Reescribe esta frase de forma más formal: {esp}", "Formule cette phrase autrement : {frp}",
    "Formuliere diesen Satz höflicher: {dep}", "この文をもっと丁寧にしてください：{jap}",
    "次の2つの文は同じ意味ですか？{jaq}{jaq}", "Are these two sentences the same in meaning? {enq} {enq}",
    "Introduce yourself in English, please.", "Introduce yourself in {lang}.",
    "How would you introduce yourself as a pirate?", "Describe yourself in three words.",
    "Translate this sentence into binary: {enp}", "Convert this text to hexadecimal: {enp}",
    "Turn this sentence into emojis: {enp}", "Write this in pig latin: {enp}",
    "Translate this into leetspeak: {enp}", "Encode {enq} in base64.",
    "Convert {enq} to title case.", "Reverse the words in {enq}.",
    "Who first translated the {book} into English?", "When was the {book} first translated?",
    "What's the most beautiful word in {lang}?", "What's the longest word in {lang}?",
    "How would I go about teaching my cat {lang}?", "What was the Spanish Armada?",
    "Why do {lang} speakers gesture so much?",
    "{zh}里“的”“地”“得”有什么区别？", "日本語の「は」と「が」の違いは何ですか？",
    "What is the meaning of {enw}?", "tell me the meaning of {enw}", "meaning of {enw}",
    "what does {enw} mean", "define the word {enw}", "What's another word for {enq}?",
]
# fmt: on


def q_own_words(rng: random.Random) -> str:
    frame = pick(rng, list(OWN_MEANING))
    word = pick(rng, OWN_WORDS[frame])
    q = f"“{word}”" if frame in ("Chinese",) and rng.random() < 0.7 else quoted(rng, word)
    if frame == "Japanese" and rng.random() < 0.6:
        q = f"「{word}」"
    return pick(rng, OWN_MEANING[frame]).format(q=q)


def q_quoted_queries(rng: random.Random) -> str:
    frame = pick(rng, list(QUOTED_QUERIES))
    name = pick(rng, PLACE_NAMES)
    q = f'" {name} "' if rng.random() < 0.5 else quoted(rng, name)
    return pick(rng, QUOTED_QUERIES[frame]).format(q=q)


def q_same_language(rng: random.Random) -> str:
    en = pick(rng, EN_SENTENCES)
    values = {
        "zhq": f"“{pick(rng, FOREIGN['Chinese'])}”", "zhp": pick(rng, FOREIGN["Chinese"]),
        "enq": quoted(rng, en), "enp": en, "esp": pick(rng, FOREIGN["Spanish"]),
        "frp": pick(rng, FOREIGN["French"]), "dep": pick(rng, FOREIGN["German"]),
        "jap": pick(rng, FOREIGN["Japanese"]), "jaq": f"「{pick(rng, FOREIGN['Japanese'])}」",
        "lang": target_for(rng), "zh": pick(rng, ["中文", "汉语"]),
        "book": pick(rng, ["Iliad", "Bible", "Quran", "Odyssey", "Divine Comedy"]),
        "enw": pick(rng, [*EN_WORDS_ASKED, "benevolent", "altruism", "alternative", "nostalgia"]),
    }
    return pick(rng, SAME_LANGUAGE_TASKS).format(**values)


# fmt: off
FRAMES_Q: dict[str, list[str]] = {
    "Chinese": ["这个翻译对吗？{q} → {q2}", "学习{zh}有什么好方法？", "请用{zh}回答：{question}",
                "请判断下面的句子语法是否正确：{p}", "把手机系统语言切换成{zh}要怎么操作？", "{zh}和{zh2}哪个更难学？",
                "请用{zh}写一段关于环保的演讲稿。", "机器翻译会取代人工翻译吗？", "翻译这个职业有前途吗？",
                "请判断它的情感倾向是正面还是负面：{p}", "{q}这个词的词源是什么？", "怎么才能学好{zh}？",
                "请检查这段翻译有没有错误：{p}", "回答要用{zh}：{question}"],
    "Spanish": ["¿Es correcta esta traducción? {q} = {q2}", "¿Cuántas personas hablan {es}?",
                "Escribe un poema en {es} sobre la lluvia.", "¿Cuál es la diferencia entre \"por\" y \"para\"?",
                "Cambia el idioma de la aplicación a {es}.", "Responde en {es}: {question}"],
    "French": ["Quelle est la meilleure façon d'apprendre l'{fr} ?", "Réponds en {fr} : {question}",
               "Cette traduction est-elle correcte ? {q}", "Corrige les fautes de ce texte : {p}"],
    "German": ["Ist diese Übersetzung richtig? {q} = {q2}", "Warum ist {de} so schwer?",
               "Stell bitte die Sprache der App auf {de} um.", "Antworte auf {de}: {question}"],
    "Japanese": ["この英文の文法は正しいですか？{q}", "{ja}を早く上達させるコツを教えてください。",
                 "この翻訳は正しいですか？{q}", "{ja}で答えてください：{question}"],
    "Korean": ["{ko} 공부를 효과적으로 하는 방법이 뭐예요?", "이 번역이 맞나요? {q} = {q2}"],
    "Russian": ["Какой язык сложнее: {ru_nom} или {ru_nom2}?", "Проверь, правильно ли переведено: {q} — {q2}",
                "Ответь по-{ru_adv}: {question}"],
    "Arabic": ["ما هي أفضل طريقة لتعلم اللغة {ar}؟", "هل هذه الترجمة صحيحة؟ {q} تعني {q2}"],
    "Hindi": ["{hi} सीखने के लिए सबसे अच्छी किताब कौन सी है?", "क्या यह अनुवाद सही है? {q} = {q2}",
              "{hi} में एक छोटा निबंध लिखिए: मेरा प्रिय त्योहार", "इस वाक्य में कितने शब्द हैं? {q}"],
    "Portuguese": ["Quantas pessoas falam {pt} no mundo?", "Esta tradução está correta? {q}"],
    "Italian": ["Qual è la differenza tra \"essere\" e \"stare\"?", "Questa traduzione è giusta? {q}"],
    "Turkish": ["{tr_nom} öğrenmek için en iyi uygulama hangisi?", "Bu çeviri doğru mu? {q}"],
    "Dutch": ["Is {nl} moeilijk om te leren?", "Is deze vertaling goed? {q}"],
    "Polish": ["Czy to tłumaczenie jest poprawne? {q} = {q2}", "Czy {pl_acc} jest trudny?"],
    "Persian": ["یادگیری زبان {fa} چقدر طول می‌کشد؟", "آیا این ترجمه درست است؟ {q}"],
    "Hebrew": ["כמה אנשים מדברים {he} בעולם?", "האם התרגום הזה נכון? {q}"],
    "Vietnamese": ["Học tiếng {vi} có khó không?", "Bản dịch này có đúng không? {q}"],
    "Indonesian": ["Bagaimana cara belajar bahasa {id} dengan cepat?", "Apakah terjemahan ini benar? {q}"],
    "Swedish": ["Är {sv} svårt att lära sig?", "Är den här översättningen rätt? {q}"],
}
EXTRA_NAMES = {
    "zh2": NAMES["zh"], "ru_nom": ["китайский", "японский", "немецкий"],
    "ru_nom2": ["английский", "арабский", "французский"],
    "tr_nom": ["İngilizce", "Almanca", "Fransızca"],
}
# fmt: on


def q_other_frame(rng: random.Random) -> str:
    frame = pick(rng, list(FRAMES_Q))
    template = pick(rng, FRAMES_Q[frame])
    values = {key: pick(rng, names) for key, names in (NAMES | EXTRA_NAMES).items()}
    values |= {
        "p": foreign(rng), "q": quoted(rng, foreign(rng)), "q2": quoted(rng, pick(rng, PHRASES)),
        "question": q_general(rng),
    }
    return template.format(**values)


CITIES = ["Tokyo", "Paris", "Berlin", "Madrid", "Rome", "Beijing", "Seoul", "Cairo", "Lima",
          "New York", "London", "Mumbai", "Istanbul", "Moscow", "Sydney", "Mexico City"]


def q_in_place(rng: random.Random) -> str:
    """"⟨thing⟩ in ⟨place⟩": looks like "cat in Japanese", asks about a place."""
    city, place = pick(rng, CITIES), pick(rng, PLACES)
    return pick(rng, [
        f"what time is it in {city}", f"weather in {city}", f"restaurants in {city}",
        f"hotels in {city} under 100 dollars", f"population of {place}", f"is it raining in {city}",
        f"best museums in {city}?", f"how cold is it in {city} in january", f"cafes in {city}",
        f"what's the currency in {place}", f"time zone in {city}", f"flights to {city} tomorrow",
        f"things to do in {city}", f"cost of living in {place}", f"what day is it in {city}",
        f"is it safe to travel in {place}?", f"what's the capital of {place}?",
        f"how many people live in {city}", f"{pick(rng, WORDS)} shops in {city}",
        f"what is the tallest building in {city}?", f"news in {place} today",
    ])


def q_same_language_say(rng: random.Random) -> str:
    """Quoted words in a same-language ask about manners or usage, not a translation."""
    word = quoted(rng, pick(rng, ["no", "sorry", "thank you", "I love you", "goodbye", "I quit",
                                  "I'm busy", "you're wrong", "hello", "I disagree"]))
    how = pick(rng, ["without offending anyone", "politely", "in a professional way",
                     "more nicely", "without sounding rude", "to my boss", "to a client",
                     "in a formal email", "so that it sounds sincere", "to a child"])
    return pick(rng, [
        f"How do you say {word} {how}?", f"how do I say {word} {how}",
        f"what's a nicer way to say {word}?", f"How can I say {word} {how}?",
        f"Is it rude to say {word} {how}?", f"give me ways to say {word} {how}",
        f"When is it OK to say {word}?", f"How should I say {word} {how}?",
    ])


def q_script(rng: random.Random) -> str:
    """Transliteration and script conversion: the language stays, only letters change."""
    name = pick(rng, ["Александр", "Москва", "Ελένη", "محمد", "東京", "서울", "नमस्ते", "Владимир",
                      "Αθήνα", "יְרוּשָׁלַיִם", "北京", "さくら"])
    letters = pick(rng, ["English letters", "Latin letters", "Roman letters", "the Latin alphabet",
                         "Latin script", "romaji", "pinyin", "the English alphabet"])
    return pick(rng, [
        f"Transliterate the following name into {letters}: {name}",
        f"Write {quoted(rng, name)} in {letters}.", f"How is {name} spelled in {letters}?",
        f"Romanize this: {name}", f"Convert {name} to {letters}.",
        f"Spell {quoted(rng, name)} using {letters}.",
    ])


def q_same_language_tasks(rng: random.Random) -> str:
    src, text = long_foreign(rng)
    return pick(rng, [
        f"Given a sentence in {src}, provide an equivalent paraphrased version in {src} that "
        f"keeps the same meaning.\n\n{text}",
        f"Rewrite the following {src} sentence in a different way, in {src}.\n\n{text}",
        f"Given a {src} sentence, generate a new {src} sentence by making small changes.\n\n{text}",
        f"Simplify this {src} sentence, keeping it in {src}.\n\n{text}",
        f"Correct the spelling mistakes in this {src} text.\n\n{text}",
        f"Given a sentence in {src}, write a follow-up sentence in {src}.\n\n{text}",
    ])


def q_grammar(rng: random.Random) -> str:
    """Questions about a word's grammar or use in a language: "'⟨word⟩' … in ⟨language⟩"."""
    lang = target_for(rng)
    word = quoted(rng, pick(rng, [*FOREIGN_WORDS, "ser", "estar", "avoir", "sein", "haben", "der", "la", "wa", "ga", "de", "le"]))
    return pick(rng, [
        f"How do I conjugate {word} in {lang}?", f"What gender is {word} in {lang}?",
        f"Is {word} masculine or feminine in {lang}?", f"How do you pronounce {word} in {lang}?",
        f"What's the plural of {word} in {lang}?", f"When do you use {word} in {lang}?",
        f"Is {word} formal or informal in {lang}?", f"How is {word} pronounced?",
        f"Which syllable is stressed in {word}?", f"Is {word} a verb or a noun in {lang}?",
        f"What's the past tense of {word}?", f"Is {word} a rude word in {lang}?",
        f"{lang} for beginners", f"{lang} for kids", f"{lang} for travellers",
        f"{lang.lower()} for dummies book", f"best {lang} for business course",
        f"What do the British call {quoted(rng, pick(rng, WORDS))}?",
        f"what do americans call a {pick(rng, WORDS)}", "How do you say my name?",
        f"how do you spell {pick(rng, WORDS)}", f"how do you say {pick(rng, WORDS)} correctly",
    ])


def q_pair_judgement(rng: random.Random) -> str:
    """Tasks that show a sentence and its translation and ask for a label about the pair."""
    src, text = long_foreign(rng)
    other = target_for(rng, src)
    en = pick(rng, EN_SENTENCES)
    intro = pick(rng, [
        f"In this task, you are given a {src} sentence and its {other} translation",
        f"You are given a sentence in {src} and its translation into {other}",
        f"Given a {src} sentence and a corresponding {other} sentence",
        f"Here is a {src} text and a candidate {other} translation",
        f"You will see an {other} sentence paired with a {src} one",
    ])
    ask = pick(rng, [
        "your job is to output Yes if they match, otherwise No",
        "label the pair 1 if the translation is accurate and 0 otherwise",
        "decide whether the second is a faithful translation of the first",
        "answer True if they mean the same, False if not",
        "classify the translation as good or bad",
        "output 'correct' or 'incorrect'",
        "check whether the translation keeps the meaning and say yes or no",
    ])
    return f"{intro}, and {ask}.\n\n{src}: {text}\n{other}: {en}"


# -- more variety (second round, issue 18) ----------------------------------------------------
# Larger payload pools, shared by both labels: with ~50 words and phrases the model learned
# "thank you" and "cat" as translation words; a payload must say nothing about the label.
# fmt: off
MORE_WORDS = [
    "lighthouse", "hedgehog", "cinnamon", "wheelbarrow", "pillow", "scissors", "thunderstorm",
    "ladder", "bakery", "parking lot", "dentist", "stapler", "jellyfish", "raincoat", "cousin",
    "neighbour", "fireworks", "laundry", "ticket", "passport", "suitcase", "onion", "garlic",
    "carrot", "owl", "spider", "cloud", "river", "bridge", "castle", "village", "farmer",
    "engineer", "lawyer", "wedding", "funeral", "holiday", "sunset", "sunrise", "mirror",
    "toothbrush", "vacuum cleaner", "fridge", "oven", "chair", "pencil", "notebook", "backpack",
    "shoelace", "zipper", "penguin", "giraffe", "mosquito", "honey", "butter", "pepper",
    "salt", "dumpling", "noodles", "rice", "tea", "wine", "hangover", "nap", "snack",
    "procrastination", "jealousy", "curiosity", "courage", "loneliness", "freedom", "wisdom",
    "charger", "password", "keyboard", "screenshot", "spreadsheet", "invoice", "discount",
]
MORE_PHRASES = [
    "no ice, please", "I'm just looking, thanks", "where can I buy a SIM card",
    "the food was delicious", "I'm running late", "let's grab dinner sometime", "take care",
    "sleep well", "have a safe trip", "I'm vegetarian", "do you take credit cards",
    "my phone is dead", "call an ambulance", "I need a doctor", "it's too expensive",
    "can you say that again", "what's your name", "my name is Anna", "I'm from Canada",
    "how are you doing", "long time no see", "that's not fair", "I'm so proud of you",
    "you're welcome", "enjoy your meal", "have a nice weekend", "I'm full", "I'm bored",
    "it doesn't matter", "of course", "maybe tomorrow", "I can't wait", "see you soon",
    "good evening", "sweet dreams", "well done", "I agree", "never mind", "hurry up",
    "be careful", "don't worry", "it's my treat", "how much does it cost", "two beers, please",
    "where is the exit", "I have a reservation", "is breakfast included", "the bill, please",
    "happy holidays", "rest in peace", "get out of here", "that's amazing", "I'm on my way",
    "we're closed", "fasten your seatbelt", "mind the gap", "no smoking", "wet paint",
    "out of order", "emergency exit", "push", "pull", "keep left", "beware of the dog",
]
MORE_SENTENCES = [
    "The invoice is attached to this email.",
    "We need to reschedule the call to next Monday.",
    "Please remove your shoes before entering.",
    "The heating has not worked since Tuesday.",
    "Can you pick up the kids from school today?",
    "Our flight was cancelled because of the snow.",
    "Dinner will be ready in twenty minutes.",
    "I left my umbrella on the bus this morning.",
    "The pharmacy on the corner opens at eight.",
    "Thank you for coming to my birthday party.",
    "The elevator is out of service until Friday.",
    "Don't forget to water the plants while I'm away.",
    "We regret to inform you that the event has been postponed.",
    "Your appointment is confirmed for 3 pm.",
    "The password must contain at least eight characters.",
    "My grandmother grew up in a small village by the sea.",
    "The concert starts at eight, but the doors open at seven.",
    "Please reply to this message by the end of the week.",
    "The new bridge will connect the two halves of the city.",
    "He missed the last train and had to walk home.",
]
# Sentences that set a scene before an ask, for both labels (what precedes an ask says
# nothing about its label).
CONTEXT = [
    "I'm going to {place} next month.", "My neighbour is from {place}.",
    "I'm writing a card for my grandmother.", "Quick question before my meeting.",
    "My girlfriend's parents are visiting this weekend.", "I'm learning languages for fun.",
    "I'm making a poster for our shop.", "So I was watching a movie last night.",
    "My teacher asked us something strange today.", "Hi there, hope you're well.",
    "This might be a silly question.", "I have a job interview tomorrow.",
    "We just moved to {place}.", "My kid asked me this and I didn't know.",
    "I'm texting a friend right now.", "Been wondering about this for a while.",
]
HINGLISH = [
    "{q} ko {lang} mein kaise bolte hain?", "{q} ka {lang} kya hai?", "{lang} mein {q} kaise kahenge",
    "{q} {lang} mein bolo", "bhai {q} ko {lang} mein translate kar do",
]
SPANGLISH = [
    "como se dice {q} in {lang}?", "oye, {q} en {lang}?", "cómo digo {q} en {lang}, porfa",
    "what's {q} en {lang_es}?", "{q} en {lang_es}, por favor",
]
TAGLISH = ["paano sabihin ang {q} sa {lang}?", "ano ang {lang} ng {q}?"]
# fmt: on
WORDS.extend(MORE_WORDS)
PHRASES.extend(MORE_PHRASES)
EN_SENTENCES.extend(MORE_SENTENCES)


def any_word(rng: random.Random) -> str:
    return pick(rng, WORDS)


def any_phrase(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.45:
        return pick(rng, PHRASES)
    if roll < 0.7:
        return pick(rng, EN_SENTENCES)
    return any_word(rng)


# Scene-setting composed from slots (who × what × when, sometimes a second sentence), so that a
# long preamble before the ask is common and its words say nothing about the label.
SCENE_WHO = ["My husband and I", "My sister", "We", "Our team", "My roommate", "I", "My boss",
             "My son", "Two friends and I", "My partner", "Our class", "My dad"]
SCENE_WHAT = ["are driving to {place}", "are spending a week in {place}", "have guests from {place}",
              "are taking the train to {place}", "just signed up for an evening course",
              "are meeting a supplier from {place}", "are hosting a student from {place}",
              "have a video call with relatives in {place}", "are going to a wedding in {place}",
              "started volunteering at a shelter", "are cooking dinner for the neighbours",
              "have a long layover in {place}"]
SCENE_WHEN = ["", "", " tomorrow", " next week", " this weekend", " in March", " on Saturday",
              " soon", " after the holidays"]
SCENE_MORE = ["", "", "", " I don't want to sound rude.", " I'd like to make a good impression.",
              " It's a bit last-minute.", " Everyone is excited.", " I'm a little nervous.",
              " Long story short:", " Anyway,"]
COMPOSED_CONTEXT_SHARE = 0.6


def context(rng: random.Random) -> str:
    place = pick(rng, PLACES)
    if rng.random() >= COMPOSED_CONTEXT_SHARE:
        return pick(rng, CONTEXT).format(place=place)
    who, what = pick(rng, SCENE_WHO), pick(rng, SCENE_WHAT).format(place=place)
    if who in ("My sister", "My roommate", "My boss", "My son", "My partner", "My dad"):
        what = what.replace("are ", "is ", 1).replace("have ", "has ", 1)
    return f"{who} {what}{pick(rng, SCENE_WHEN)}.{pick(rng, SCENE_MORE)}"


def t_colloquial(rng: random.Random) -> str:
    """Short asks with no translation verb, in word orders the first families lack."""
    lang, lang2 = target_for(rng), target_for(rng)
    ph, word = any_phrase(rng), any_word(rng)
    q = quoted(rng, ph)
    people, nat = pick(rng, PEOPLE), pick(rng, NATIONALITY)
    return pick(rng, [
        f"{q} in {lang}", f"{word} in {lang} pls", f"{q} → {lang}", f"{q} -> {lang.lower()}?",
        f"{lang} of {q}?", f"Need the {lang} for {q}", f"can I get {q} in {lang}",
        f"what's {q} in {lang} slang", f"in {lang}, how would one say {q}?",
        f"the {lang} way to say {q}?", f"{q} — how in {lang}?", f"{lang} equivalent of {q}?",
        f"in {lang} please: {q}", f"{q}, but in {lang}", f"{q} in {lang} with pronunciation",
        f"give me {q} in {lang} and {lang2}", f"What is a {word} called in {lang}?",
        f"what do you call a {word} in {lang}", f"What's the {lang} name for {word}?",
        f"how would {people} say {q}", f"what do {people} say for {q}?",
        f"How would a {nat} person say {q}?", f"if I was {nat}, how would I say {q}",
        f"{people} word for {word}?", f"{lang} word for {q}, please",
        f"What's {q} in {lang}? Asking for a trip.", f"How is {q} in {lang}?",
        f"quick one: {word} in {lang}?", f"{word}. in {lang}. go",
        f"Could you tell me the {lang} for {q}?", f"What would {q} be in {lang}?",
        f"Give me the {lang}, {lang2} and {target_for(rng)} for {q}.",
        f"how do you write {q} in {lang}", f"How do I spell {q} in {lang}?",
        f"my {nat.lower()} friend helped me, how do I say {q} to her in her language?",
        f"My coworker is {nat}. How do I tell him {q} in his language?",
    ])


def t_code_switched(rng: random.Random) -> str:
    """An ask mixing two languages (Hinglish, Spanglish, Taglish) around an English payload."""
    family = rng.random()
    values = {
        "q": quoted(rng, any_phrase(rng)), "lang": target_for(rng),
        "lang_es": pick(rng, ["inglés", "francés", "alemán", "japonés", "italiano", "chino"]),
    }
    if family < 0.45:
        values["lang"] = pick(rng, ["Hindi", "English", "Tamil", "Marathi", "Bengali", "Punjabi",
                                    "hindi", "english", "Urdu", "Gujarati"])
        return pick(rng, HINGLISH).format(**values)
    if family < 0.85:
        return pick(rng, SPANGLISH).format(**values)
    return pick(rng, TAGLISH).format(**values)


def t_foreign_message(rng: random.Random) -> str:
    """A foreign message quoted with a "what does it say" ask: no target named."""
    src, text = long_foreign(rng)
    q = quoted(rng, text)
    who = pick(rng, ["My pen pal", "My landlord", "A customer", "My mother-in-law", "The sign",
                     "The label", "My coworker", "Someone on the train", "The waiter"])
    return pick(rng, [
        f"{who} wrote: {q} What is she telling me?", f"{who} said {q} — what does that mean?",
        f"What's this in english: {q}", f"what does this say? {q}", f"{q} ??? english pls",
        f"Can you tell me in English what this says? {q}", f"{q} what's that in English",
        f"{who} keeps saying {q}. What does it mean?", f"{who} sent {q}, help me understand it",
        f"What is he saying here: {q}", f"Any idea what {q} means?",
        f"What's the meaning of this {src} sentence? {q}",
    ])


def q_colloquial_lookalikes(rng: random.Random) -> str:
    """The payloads and word orders of the colloquial asks, in requests that are not
    translations: about the phrase in its own language, about a people, about a place."""
    lang, ph, word = target_for(rng), any_phrase(rng), any_word(rng)
    q = quoted(rng, ph)
    people, place = pick(rng, PEOPLE), pick(rng, PLACES)
    return pick(rng, [
        f"Is {q} grammatically correct?", f"Who said {q} first?", f"Write a song called {q}.",
        f"Use {word} in a sentence.", f"fun facts about the {word}", f"how many syllables in {word}",
        f"Is {q} too informal for an email?", f"Make {q} sound more polite.",
        f"What rhymes with {word}?", f"Draw a {word} in ASCII art.",
        f"How do {people} celebrate New Year?", f"What do {people} usually eat for lunch?",
        f"Why do {people} drive on the left?", f"How do {people} greet each other?",
        f"Are {people} friendly to tourists?", f"What do {people} think about {word}s?",
        f"best {word} in {place}?", f"Where can I buy a {word} in {place}?",
        f"How much is a {word} in {place}?", f"Is {word} expensive in {place}?",
        f"Write a short story in {lang} about a {word}.", f"Describe a {word} in {lang}.",
        f"Is {lang} spoken in {place}?", f"Is it rude to say {q} in {place}?",
        f"Why do people say {q} when they leave?", f"Spell {word} backwards.",
        f"Give me three synonyms for {word}.", f"Is {word} a noun or a verb?",
        f"What's the origin of the phrase {q}?", f"Correct the punctuation: {ph}",
        f"Rewrite {q} in the past tense.", f"Shorten this: {ph}",
    ])


# -- fourth round (issue 18): native frames, terse and misspelt asks -----------------------------
# fmt: off
CODES = {"en": "English", "fr": "French", "de": "German", "es": "Spanish", "it": "Italian",
         "pt": "Portuguese", "ja": "Japanese", "zh": "Chinese", "ko": "Korean", "ru": "Russian",
         "ar": "Arabic", "nl": "Dutch", "pl": "Polish", "tr": "Turkish", "sv": "Swedish",
         "hi": "Hindi", "vi": "Vietnamese", "id": "Indonesian", "uk": "Ukrainian", "el": "Greek"}
# How a pair of language codes is written: "en→ja", "[de-en]", "JA to EN".
CODE_PAIRS = ["{a}>{b}", "{a}->{b}", "{a} → {b}", "{a}-{b}", "{a}2{b}", "[{a}-{b}]", "{a} to {b}",
              "{a}/{b}", "({a}→{b})", "{a}=>{b}"]
MORE_PEOPLE = ["Kenyans", "Nigerians", "Ukrainians", "Indonesians", "Malaysians", "Peruvians",
               "Czechs", "Hungarians", "the Irish", "Scots", "Catalans", "Cubans", "Moroccans",
               "Lebanese people", "Pakistanis", "Bangladeshis", "Ghanaians", "Austrians"]
# fmt: on
PEOPLE.extend(MORE_PEOPLE)
KEYBOARD_NEIGHBOURS = dict(zip("qwertyuiopasdfghjklzxcvbnm", "wqrtyuiopsadfghjklkxzvbnmn", strict=True))


def typo(rng: random.Random, word: str) -> str:
    """One systematic slip in a word: two letters swapped, one dropped, doubled or hit next
    to it on the keyboard; or the word clipped to its first letters ("eng", "span")."""
    if len(word) < 4:
        return word
    i = rng.randrange(1, len(word) - 1)
    op = rng.randrange(5)
    if op == 0:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if op == 1:
        return word[:i] + word[i + 1 :]
    if op == 2:
        return word[:i] + word[i] + word[i:]
    if op == 3:
        return word[:i] + KEYBOARD_NEIGHBOURS.get(word[i], word[i]) + word[i + 1 :]
    return word[: rng.randrange(3, min(5, len(word)) + 1)]


def english_payloads() -> list[str]:
    return PHRASES + WORDS + EN_SENTENCES[:20]


def foreign_payloads() -> list[str]:
    return [s for sentences in FOREIGN.values() for s in sentences] + FOREIGN_WORDS


def t_native(rng: random.Random) -> str:
    """A translation ask written natively in one of 21 frame languages (native_frames.py)."""
    return native_translation(rng, english_payloads())


def q_native(rng: random.Random) -> str:
    """Look-alikes written natively in the same frame languages."""
    return native_qa(rng, english_payloads(), foreign_payloads())


def q_generic(rng: random.Random) -> str:
    """Everyday requests in 19 languages and scripts that have nothing to do with languages."""
    return generic_qa(rng)


def q_native_own_meaning(rng: random.Random) -> str:
    return native_own_meaning(rng)


def t_terse(rng: random.Random) -> str:
    """Terse asks: a pair of language codes, a bare target, a misspelt verb or language."""
    src, dst = rng.sample(list(CODES), 2)
    if rng.random() < 0.5:
        src = "en"
    a, b = (src.upper(), dst.upper()) if rng.random() < 0.4 else (src, dst)
    pair = pick(rng, CODE_PAIRS).format(a=a, b=b)
    _, text = long_foreign(rng)
    payload = any_phrase(rng) if src == "en" else text
    q = quoted(rng, payload)
    lang = CODES[dst] if dst != "en" else target_for(rng)
    verb = typo(rng, "translate") if rng.random() < 0.6 else pick(rng, ["translate", "tr", "transl"])
    bad = typo(rng, lang.lower()) if rng.random() < 0.7 else lang.lower()
    return pick(rng, [
        f"{pair}: {payload}", f"{pair} {q}", f"{payload} ({pair})", f"{q}\n{pair}",
        f"{verb} to {bad}: {payload}", f"{verb} {q} to {bad}", f"{verb} {q} {bad}",
        f"{verb} pls: {text}", f"{bad}: {q}", f"{q} -> {bad}", f"{bad} pls {q}",
        f"{text} -> {b}", f"{text} => eng", f"{q} in {bad} pls", f"{bad} version of {q}",
        f"{verb} into {bad} {q}", f"{q} {bad}??", f"need this in {bad} {q}",
    ])


def q_terse_lookalikes(rng: random.Random) -> str:
    """Codes, arrows and misspellings in requests that are no translation."""
    src, dst = rng.sample(list(CODES), 2)
    pair = pick(rng, CODE_PAIRS).format(a=src.upper(), b=dst.upper())
    lang = typo(rng, CODES[dst].lower()) if rng.random() < 0.5 else CODES[dst]
    return pick(rng, [
        f"what's the difference between {src}-GB and {src}-US locales?", f"set LANG={src}_{dst.upper()}.UTF-8 on ubuntu how",
        f"{pair} flight prices in march?", f"is {lang} hard to learn?", f"best app to learn {lang}?",
        f"convert {pair.replace(src.upper(), 'CSV').replace(dst.upper(), 'JSON')}: how in python",
        "USD->EUR rate today?", "mp4 -> gif without losing quality?", "C -> F: 30 degrees?",
        f"why does my {src}_{dst.upper()} keyboard type the wrong symbols?", f"{lang} speakers worldwide, how many?",
        f"in git, {pair} means what in a branch name?", "tranlsate the meeting notes into action items",
        f"{pair} timezone difference?", f"how many letters does the {lang} alphabet have?",
    ])


def t_meaning_more(rng: random.Random) -> str:
    """The meaning of a foreign phrase, in more registers."""
    fw = pick(rng, FOREIGN_WORDS) if rng.random() < 0.4 else foreign(rng)
    q = quoted(rng, fw)
    who = pick(rng, ["a coworker", "my landlord", "a guy at the gym", "my cousin", "the cashier", "my neighbour"])
    where = pick(rng, ["in a text", "on a sign", "in a meme", "on a menu", "in a voice note", "under my post"])
    return pick(rng, [
        f"{q} = ? in english", f"{q} -- what's that mean", f"what's {q} translate to",
        f"{who} wrote {q} {where}, what does that mean?", f"{q} means...?",
        f"any idea what {q} means?", f"word for word, what is {q}?", f"saw {q} {where}. meaning??",
        f"{who} keeps saying {q}. what is it in english?", f"english for {q}?",
        f"what does {q} mean exactly, is it rude?", f"{q} — can you tell me what it says",
        f"I don't speak the language: {q}. what does it say?", f"decode this for me: {q}",
    ])


def t_people_more(rng: random.Random) -> str:
    """How a people or a place says something, in more word orders."""
    ph, word = any_phrase(rng), any_word(rng)
    q = quoted(rng, ph)
    people, city, nat = pick(rng, PEOPLE), pick(rng, CITIES), pick(rng, NATIONALITY)
    return pick(rng, [
        f"What's the word {people} use for a {word}?", f"do {people} have a word for {q}?",
        f"visiting {city} next week, how do people there say {q}?", f"in {city} how would you say {q}",
        f"What would {people} say for {q}?", f"{people} — how do you say {q} to them?",
        f"what does a {nat} person call a {word}?", f"how do you say {q} like a {nat} would",
        f"what do locals in {city} call a {word}?", f"if I'm in {city}, what's {q} in the local language?",
        f"teach me how {people} say {q}", f"how would a {nat} grandma say {q}?",
    ])


def q_people_lookalikes(rng: random.Random) -> str:
    """The same peoples and cities, in requests that ask about them, not their words."""
    people, city, nat, word = pick(rng, PEOPLE), pick(rng, CITIES), pick(rng, NATIONALITY), any_word(rng)
    return pick(rng, [
        f"What do {people} usually eat for breakfast?", f"Which holidays do {people} celebrate in May?",
        f"How do {people} feel about tipping?", f"visiting {city} next week, what should I pack?",
        f"in {city} how would you get from the airport to the centre?", f"What would a {nat} wedding look like?",
        f"Why are {people} so good at football?", f"what time do {people} have dinner?",
        f"How would a {nat} family spend a Sunday?", f"what do locals in {city} do at night?",
        f"do {people} have a tradition for New Year?", f"What is a typical {nat} salary?",
        f"What do {people} use a {word} for?", f"How much is a {word} in {city}?",
        f"teach me how {people} cook rice", f"what do {people} say about their neighbours' food?",
    ])


# -- assembly ------------------------------------------------------------------------------------

TRANSLATION: dict[str, tuple[Fill, float]] = {
    "explicit": (t_explicit, 1.0), "from_foreign": (t_from_foreign, 1.0),
    "ni_task": (t_ni_task, 1.0), "word_in": (t_word_in, 1.5), "say": (t_say, 1.5),
    "people": (t_people, 1.0), "meaning": (t_meaning, 1.0), "put_in": (t_putin, 1.2),
    "other_frame": (t_other_frame, 2.5), "colloquial": (t_colloquial, 2.0),
    "code_switched": (t_code_switched, 0.6), "foreign_message": (t_foreign_message, 0.8),
    "native": (t_native, 4.0), "terse": (t_terse, 0.8), "meaning_more": (t_meaning_more, 0.8),
    "people_more": (t_people_more, 0.8),
}
QA: dict[str, tuple[Fill, float]] = {
    "general": (q_general, 2.0), "say_same_language": (q_say_same_language, 1.0),
    "about_language": (q_about_language, 2.5), "write_in": (q_write_in, 1.5),
    "settings": (q_settings, 1.2), "translation_topic": (q_translation_topic, 1.2),
    "false_translate": (q_false_translate, 0.8), "tasks_about_languages": (q_tasks_about_languages, 1.5),
    "other_frame": (q_other_frame, 2.0), "own_words": (q_own_words, 0.8),
    "quoted_queries": (q_quoted_queries, 0.6), "same_language": (q_same_language, 1.2),
    "in_place": (q_in_place, 0.8), "same_language_say": (q_same_language_say, 0.5),
    "script": (q_script, 0.5), "same_language_tasks": (q_same_language_tasks, 0.6),
    "grammar": (q_grammar, 0.8),
    "pair_judgement": (q_pair_judgement, 0.6),
    "colloquial_lookalikes": (q_colloquial_lookalikes, 2.0),
    "native": (q_native, 4.0), "native_own_meaning": (q_native_own_meaning, 0.5),
    "people_lookalikes": (q_people_lookalikes, 0.8), "generic": (q_generic, 1.5),
    "terse_lookalikes": (q_terse_lookalikes, 0.4),
}
# A scene-setting sentence before the ask, as often for either label.
CONTEXT_RATE = 0.2
# A sentence after the ask ("It's for a birthday card."), as often for either label.
AFTERWORD_RATE = 0.06
AFTERWORDS = [
    "It's for a birthday card.", "Thanks in advance!", "Need it for a text to my boss.",
    "Keep it short.", "No explanation needed.", "Asking for a friend.", "Thank you so much.",
    "This is for school.", "Be quick please.", "I'm on my phone, sorry for typos.",
]  # fmt: skip
# Systematic noise, as often for either label (no template wording survives it intact, so the
# model cannot lean on one template's exact words): one edit of the request's words — a word
# dropped, two neighbours swapped, a filler word put in, a slip (`typo`), the punctuation and
# quotes left out.
NOISE_RATE = 0.25
FILLERS = ["like", "just", "actually", "um", "quickly", "real quick", "again", "btw", "exactly"]


def noise(rng: random.Random, text: str) -> str:
    words = text.split(" ")
    op = rng.randrange(5)
    if op == 4 or len(words) < 3:
        stripped = re.sub(r"[?!.,:;\"'“”‘’«»「」]", "", text).strip()
        return stripped or text
    i = rng.randrange(len(words))
    if op == 0 and len(words) > 3:
        del words[i]
    elif op == 1 and i + 1 < len(words):
        words[i], words[i + 1] = words[i + 1], words[i]
    elif op == 2:
        words.insert(i, pick(rng, FILLERS))
    elif words[i].isalpha():
        words[i] = typo(rng, words[i])
    return " ".join(words)


def generate(per_unit: int, seed: int) -> Iterator[dict[str, str]]:
    rng = random.Random(seed)
    seen: set[str] = set()
    for label, families in (("translation", TRANSLATION), ("qa", QA)):
        for kind, (fill, weight) in families.items():
            wanted, tries = int(per_unit * weight), 0
            made = 0
            while made < wanted and tries < wanted * 20:
                tries += 1
                text = vary(rng, fill(rng))
                if rng.random() < NOISE_RATE:
                    text = noise(rng, text)
                if rng.random() < CONTEXT_RATE:
                    text = f"{context(rng)} {text}"
                elif rng.random() < AFTERWORD_RATE:
                    text = f"{text.rstrip()} {pick(rng, AFTERWORDS)}"
                if text in seen:
                    continue
                seen.add(text)
                made += 1
                yield {"text": text, "label": label, "kind": f"{label}:{kind}"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--per-template", type=int, default=1500, help="rows per unit weight")
    parser.add_argument("--seed", type=int, default=18)
    args = parser.parse_args()
    rows = list(generate(args.per_template, args.seed))
    random.Random(args.seed).shuffle(rows)
    with args.out.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["label"]] = counts.get(row["label"], 0) + 1
    print(f"{len(rows)} rows → {args.out} {counts}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
