# ruff: noqa: E501  (a table of whole requests reads better unwrapped)
"""More phrasings: instruction-style tasks, voice-assistant asks, and near misses."""

from __future__ import annotations

import pytest

from router.classify import Classifier
from router.config import RecognitionConfig

# (expected route, request): written for these tests, in the styles requests arrive in
CASES = [
    (
        "translation",
        "Given a sentence in Japanese, provide an equivalent translation in Filipino that retains the same meaning.\n\n今日はとても暑いです。",
    ),
    (
        "translation",
        "In this task, you're given a sentence in Gujarati, translate it to English.\n\nઆજે વરસાદ પડે છે.",
    ),
    (
        "translation",
        "This task is about translating a given French language sentence to English.\n\nLe chat est sur la table.",
    ),
    (
        "translation",
        "In this task, you are given a text in Telugu. Convert it to English.\n\nనేను ఇంటికి వెళ్తున్నాను",
    ),
    ("translation", "Translate from English to Hindi.\n\nThe school is closed today."),
    (
        "translation",
        "Given a sentence in German, provide an equivalent paraphrased translation in Korean that retains the same meaning both through the translation and the paraphrase.\n\nDas Haus ist alt.",
    ),
    (
        "translation",
        "You are given a sentence in Polish. Your job is to translate the Polish sentence into Portugese.\n\nDzień dobry.",
    ),
    (
        "translation",
        "In this task, you are given a sentence in the Romanian language. Your job is to translate the Romanian sentence into the English language.\n\nAcesta este un test.",
    ),
    ("translation", "Translate the given Spanish text to English\n\nEl perro corre en el parque."),
    (
        "translation",
        "In this task, you need to translate the given English sentence to Polish language.\n\nI like apples.",
    ),
    ("translation", "Translation from English to Telugu.\n\nThe sun rises in the east."),
    (
        "qa",
        'In this task, you are given a sentence in English and its Japanese translation. Check if the translation is correct. Generate label "Yes" or "No".\n\nEnglish: Hello\nJapanese: こんにちは',
    ),
    (
        "qa",
        "Given a sentence in Spanish and its English translation, judge whether the translation is correct.\n\nSpanish: Hola\nEnglish: Hello",
    ),
    (
        "qa",
        "In this task, you are given a sentence in Bengali. Classify the sentiment of the sentence as positive or negative.\n\nআমি খুশি",
    ),
    (
        "qa",
        "In this task, you are given a tweet in Arabic. Your task is to classify it as offensive or not.\n\nمرحبا",
    ),
    (
        "qa",
        "In this task, you are given a sentence in one of the following languages: English, French, German. Identify the language of the sentence.\n\nBonjour tout le monde",
    ),
    (
        "qa",
        "In this task, you are given a question in Persian, and your task is to answer it.\n\nپایتخت ایران کجاست؟",
    ),
    (
        "qa",
        "In this task, you are given a passage in Hindi and a question. Answer the question in Hindi.\n\nदिल्ली भारत की राजधानी है।",
    ),
    ("qa", "Given a sentence in English, convert it into Pig Latin.\n\nhello world"),
    ("qa", "Detect the language of the given text.\n\nHola amigo"),
    ("qa", "Write a tweet in Spanish about the weather."),
    (
        "qa",
        "In this task, you are given an English sentence. Your task is to classify whether it is grammatically correct.\n\nHe go to school.",
    ),
    (
        "qa",
        "Given a Chinese sentence, generate a new sentence by making small changes that are semantically related.\n\n他喜欢吃苹果。",
    ),
    (
        "qa",
        "In this task you will be given a text in Dutch. Identify named entities.\n\nJan woont in Amsterdam.",
    ),
    ("translation", "can you translate hello into spanish"),
    ("translation", "what is the french translation of bathroom"),
    ("translation", "say cat in german"),
    ("translation", "tell me how to say thank you in chinese"),
    ("translation", "i need to know how to say goodbye in japanese"),
    ("translation", "what's the spanish equivalent of hello"),
    ("translation", "how is hello said in mandarin"),
    ("translation", "give me the word cat in french"),
    ("translation", "translate good morning"),
    ("translation", "what would i say in chinese to say hello"),
    ("translation", "how does one say sorry in hindi"),
    ("translation", "what's the swahili word for friend"),
    ("translation", "how would they say butter in zambia"),
    ("translation", "if i were mongolian, how would i say that i am a tourist"),
    ("qa", "change language to spanish"),
    ("qa", "can you speak french"),
    ("qa", "what language do you speak"),
    ("qa", "set your language to english"),
    ("qa", "what languages can you translate"),
    ("qa", "what's the meaning of life"),
    ("qa", "what is the definition of ubiquitous"),
    ("qa", "how do you say my name"),
    ("qa", "switch to spanish"),
    ("qa", "what does lol mean"),
    ("translation", "将以下句子翻译成法语：我喜欢喝茶。"),
    ("translation", "把下列中文翻译成英文。\n今天是星期一。"),
    ("translation", "将下面这段话用英文表达出来：我是一名学生。"),
    ("translation", "将下面的中文句子转换成英文：我爱我的家。"),
    ("translation", "这句话的英文是什么：我很高兴见到你。"),
    ("translation", "苹果的英文单词是什么？"),
    ("translation", "英译中：The early bird catches the worm."),
    ("translation", "请帮我把这段话翻成日文：我明天去东京。"),
    ("qa", "用英语写一段自我介绍。"),
    ("qa", "请用英文写一封求职信。"),
    ("qa", "英语和法语有什么区别？"),
    ("qa", "如何提高英语口语水平？"),
    ("qa", "请判断这段英文的语法是否正确：He go to school."),
    ("qa", "请把这段话改写成文言文：今天天气很好。"),
    ("qa", "将下列句子中的错别字改正过来：我门今天去公园。"),
    ("translation", "ترجمه کنید به انگلیسی: من دانشجو هستم."),
    ("translation", "این جمله را به فارسی ترجمه کن: I love books."),
    ("qa", "معنی کلمه دوست در فارسی چیست؟"),
    ("translation", "次の英文を日本語に訳してください。\nI have a pen."),
    ("qa", "日本語を勉強するのに一番良い方法は何ですか？"),
    (
        "translation",
        'I want you to act as an English translator, spelling corrector and improver. My first sentence is "istanbulu cok seviyom burada olmak cok guzel"',
    ),
    ("qa", 'I want you to act as a travel guide. My first request is "I am in Istanbul".'),
    (
        "qa",
        "Given a sentence in English and its translation in Hindi, determine whether the translation is correct.\n\nEnglish: Good morning\nHindi: सुप्रभात",
    ),
    (
        "qa",
        "You are given a sentence in Portuguese and its English translation. Your task is to classify if the translation is correct or not.",
    ),
    ("qa", "Explain the meaning of the phrase 'break a leg'."),
    ("qa", "What does 'piece of cake' mean?"),
    ("qa", 'What does "the ball is in your court" mean?'),
    ("translation", 'What does "ich liebe dich" mean?'),
    ("qa", "What is the plural of 'cactus'?"),
    ("qa", "What's the past tense of 'swim'?"),
    ("qa", "How do I conjugate 'ser' in Spanish?"),
    ("qa", "What is the difference between 'por' and 'para' in Spanish?"),
    ("qa", "Explain the grammar of this Japanese sentence: 私は学生です"),
    ("qa", "How do you write a letter in Spanish?"),
    ("qa", "How do you greet someone in a job interview?"),
    ("qa", "What do you call a baby kangaroo?"),
    ("qa", "What is the word for fear of spiders?"),
    ("qa", "What is the best way to say no politely in English?"),
    ("qa", "Respond in Spanish: what is the capital of Peru?"),
    ("translation", "English: ¿Dónde está la biblioteca?"),
    ("qa", "Transliterate this Hindi text into Latin script: नमस्ते"),
    ("qa", "Put this sentence into the passive voice: The cat ate the mouse."),
    ("qa", "Rewrite the email in British English.\n\nHi Tom, the color of the new logo is great."),
    (
        "qa",
        "Translate this legal clause into plain English: The party of the first part shall indemnify the party of the second part.",
    ),
    ("qa", "Convert this recipe to metric units."),
    ("qa", "这首诗表达了作者怎样的思想感情？"),
    ("qa", "请解释一下“翻译”这个词的来源。"),
    ("qa", "中文和日文的语法有什么不同？"),
    ("qa", "翻译成英文的文章需要注意什么？"),
    ("qa", "请问英语四级考试有哪些题型？"),
    ("qa", "你能说中文吗？"),
    (
        "translation",
        "你能帮我翻译一下吗？I don't understand this sentence: the early bird catches the worm.",
    ),
    ("translation", 'Translate "I miss you" to French'),
    ("translation", "translate: the quick brown fox"),
    ("translation", "How would you translate 'Weltschmerz' into English?"),
    ("translation", 'What\'s "good night" in Japanese?'),
    ("translation", 'How to say "I love you" in Korean?'),
    ("translation", "Wie heißt „Schmetterling“ auf Englisch?"),
    ("translation", '¿Qué significa "I\'m starving" en español?'),
    ("translation", "«Merci beaucoup» — qu'est-ce que ça veut dire en anglais ?"),
    ("qa", "What's the most spoken language in the world?"),
    ("qa", "Can you teach me some basic Spanish phrases for travel?"),
    ("qa", "List five common greetings in Japanese with their meanings."),
    ("qa", "Why do Germans capitalize nouns?"),
    ("qa", "日本語と英語、どちらが難しいですか？"),
    ("qa", "한국어를 배우는 가장 좋은 방법은?"),
    ("qa", "Объясни правило употребления артиклей в английском языке."),
    ("qa", "اشرح قواعد اللغة العربية للمبتدئين"),
    ("qa", "हिंदी व्याकरण में संज्ञा क्या है?"),
    (
        "qa",
        "In this task, you are given a sentence in English and a translation in Japanese. Your task is to check whether the translation is correct.",
    ),
    ("qa", "Given a question in Tamil, return the answer in English.\n\nஇந்தியாவின் தலைநகரம் எது?"),
    (
        "qa",
        "In this task, you will be given sentences in which your task is to recognize the name of the language.\n\nBonjour",
    ),
    ("qa", "写一首关于翻译的诗。"),
    ("qa", "给我推荐几个好用的翻译软件。"),
    ("translation", "这句英文是什么意思：It's raining cats and dogs."),
    ("translation", "“卧槽”用英文怎么说"),
    ("translation", "将下面的英文歌词翻译成中文：\nYesterday, all my troubles seemed so far away."),
    ("qa", "What is the meaning of the idiom 'spill the beans'?"),
    ("qa", 'Explain what "carpe diem" means as a life philosophy and give examples.'),
    (
        "qa",
        "In this task, you are given a Japanese sentence and its English translation, and your job is to output Yes if they match.\n\nJapanese: 猫\nEnglish: cat",
    ),
    ("qa", "Who translated the King James Bible?"),
    ("qa", "When was the Bible first translated into English?"),
    ("qa", "How many languages has Harry Potter been translated into?"),
    ("qa", "The novel was translated into 40 languages. Who is its author?"),
    ("translation", "Please help me translate this email to my landlord into polite German."),
    ("translation", "Could you translate the menu below for me?\n\nPollo asado, Arroz con leche"),
    ("translation", "I need a Spanish version of this text: We are closed on Sunday."),
    ("qa", "I need a Spanish tutor, any recommendations?"),
    ("qa", "Can you recommend an app for learning Japanese?"),
    ("qa", "what's the weather like in spain"),
    ("qa", "tell me a joke in french"),
    ("translation", "say thank you in japanese"),
    ("qa", "what is the time in japan"),
    ("qa", "in spanish class today we learned about verbs, can you quiz me?"),
    ("translation", "私の名前は田中です。Translate to English please."),
    ("translation", "Bonjour, je m'appelle Marie. (in English)"),
    ("translation", "Guten Morgen! -> English"),
    (
        "qa",
        "Correct the grammar in this French sentence: Je suis allé au magasin hier et j'ai acheté des pommes.",
    ),
    ("qa", 'Is "Ich bin kalt" the correct way to say I\'m cold in German?'),
]


@pytest.fixture(scope="module")
def classifier() -> Classifier:
    routes = {"qa": RecognitionConfig(), "translation": RecognitionConfig(signals="translation")}
    return Classifier(routes, "qa")


@pytest.mark.parametrize(("route", "text"), CASES)
def test_phrasing(classifier: Classifier, route: str, text: str) -> None:
    decision = classifier.classify_text(text)
    assert decision.route == route, decision
