# ruff: noqa: E501  (a table of whole requests reads better unwrapped)
"""More phrasings: instruction-style tasks, voice-assistant asks, and near misses."""

from __future__ import annotations

import pytest

from router.classify import Classifier
from router.classify.config import RecognitionConfig

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
    # the text wanted in another language, never saying "translate"
    ("translation", "Given a sentence in Korean, produce the same sentence in Greek.\n\n고마워요."),
    ("translation", "You are given a Dutch sentence; write it in English.\n\nIk ben moe."),
    (
        "translation",
        "Given an English question, output the corresponding question in Hindi.\n\nWhy?",
    ),
    ("translation", "Given a German sentence, give its Bahasa Indonesia version.\n\nGuten Tag."),
    ("translation", "I need this in Swedish: the office is closed today."),
    ("translation", "localise this button label into Italian: 'Save changes'"),
    ("qa", "Given a sentence in Greek, provide a paraphrased version in Greek.\n\nΚαλημέρα σας."),
    ("qa", "Given a question written in Bengali, answer it in English.\n\nকেমন আছ?"),
    ("qa", "Convert the given Russian text from the Cyrillic script to the Latin script."),
    ("qa", "Please write the summary in French."),
    ("qa", "Generate the same sentence in the passive voice."),
    # who says it: a people or a country, not a named language
    ("translation", "how would a frenchman say good night"),
    ("translation", "how do people in sweden say cheers"),
    ("translation", "what do norwegians say when they toast"),
    ("qa", "what do the americans call a lift"),
    ("qa", "how do doctors say bad news to patients"),
    # "the X for", in more frames
    ("translation", "what's the English for 'schadenfreude'?"),
    ("translation", "could you help me with the Italian for 'table for two'"),
    ("translation", "polish for apple"),
    ("qa", "spanish for beginners"),
    ("qa", "What's the German for-profit law on companies?"),
    ("translation", "Say 'good luck' in four languages."),
    ("translation", "teach me to say hello in thai"),
    ("translation", "What does 'Qué tal' mean?"),
    ("qa", "What does 'touch grass' mean?"),
    ("translation", "Can you tell me what this note says? 'À demain, bisous'"),
    ("translation", "What is 'goodbye' in Maori?"),
    # other request languages
    ("translation", "Hoe zeg je 'goedemorgen' in het Duits?"),
    ("translation", "Hur säger man 'god natt' på franska?"),
    ("translation", "Jak powiedzieć 'dobranoc' po niemiecku?"),
    ("translation", "'İyi geceler' Almancada nasıl denir?"),
    ("translation", "'ਧੰਨਵਾਦ' ਨੂੰ ਅੰਗਰੇਜ਼ੀ ਵਿੱਚ ਕੀ ਕਹਿੰਦੇ ਹਨ? Translate to English."),
    ("translation", "'शुभ रात्रि' को अंग्रेज़ी में कैसे कहते हैं?"),
    ("translation", "«شب بخیر» به آلمانی چه می‌شود؟"),
    ("translation", "韓国語で「おやすみ」はどう言いますか？"),
    ("translation", "この文を英語にしてください：駅はどこですか。"),
    ("translation", "“高速公路”在英文里叫什么？"),
    ("translation", "请给出“人工智能”的日文说法。"),
    ("translation", "帮我用英文写一下：会议改到明天。"),
    ("translation", "帮我翻一下这句：See you tomorrow."),
    ("translation", "Tradúceme al inglés: buenas noches."),
    ("qa", "英文论文的摘要应该怎么写？"),
    ("qa", "把界面语言切换成英文。"),
    ("qa", "翻一下这本书的目录有什么内容？"),
    # checking a translation, in other languages
    ("qa", "Ist diese Übersetzung korrekt? 'Ich vermisse dich' = 'I miss you'"),
    ("qa", "Cette traduction est-elle juste ? « Bonne nuit » pour « Good night »"),
    ("qa", "Верный ли перевод: «good luck» — «удачи»?"),
    ("qa", "Determine whether the English sentence is an accurate translation of the Tamil one."),
    ("qa", "In this task, translate all the numbers in the given English sentence into words."),
    # a determiner before the language ("into any ⟨language⟩ dialect") still names a language
    ("translation", "Translate into any Italian dialect and tell me which: 'Let's eat!'"),
    ("translation", "Translate 'good morning' into some Arabic dialect and name it."),
    # a language name does not make the frame that language ("portuguese" read as Portuguese)
    ("translation", "Put this into Portuguese: the parcel arrives tomorrow"),
    # 把/将 before the verb is a request in Chinese
    ("translation", "请帮我把 'Keep calm and carry on' 翻译一下"),
    # comparing translations is judging them
    ("qa", "Which is the better translation of 'Ich liebe dich': 'I love you' or 'I like you'?"),
    ("qa", "Which translation sounds more natural, A or B?"),
]

# A pair of language codes as the whole instruction is a translation; codes that are no pair
# of two different languages (locales, currencies, file formats, units) are not.
CODE_PAIRS = [
    ("translation", "fr→en: On se voit demain à la gare."),
    ("translation", "[de-en] Der Zug hat zwanzig Minuten Verspätung"),
    ("translation", "EN>JA: the meeting moved to Thursday"),
    ("translation", "es to en: ¿Dónde está la biblioteca?"),
    ("translation", "fr->en: Le bus a du retard à cause du brouillard."),
    ("qa", "en-US: which date format do Americans use?"),
    ("qa", "zh-CN: is that simplified or traditional script?"),
    ("qa", "USD->EUR: what's the rate today?"),
    ("qa", "C->F: is 30 degrees hot?"),
    # "into" + a register word: what follows it decides whether a language is named
    ("qa", "translate my meeting scribbles into a proper project summary"),
    ("qa", "translate these bullet points into clear steps for a new hire"),
    ("translation", "Please translate into formal Japanese: thank you for your patience"),
    ("translation", "translate into simple Spanish: the clinic is closed on Sundays"),
    # a phrase almost surely not in the ask's language is foreign, though lingua names no one
    # language with confidence ("terima kasih banyak" is sure; these are not)
    ("translation", "What does 'asante sana rafiki' mean?"),
    ("translation", "my friend keeps saying 'dolce vita' — what does that mean?"),
    # a people or a big city instead of a language; the people's name is no evidence of the
    # ask's own language ("how do filipinos say …" reads as Filipino with it)
    ("translation", 'How do Filipinos say "see you tomorrow"?'),
    ("translation", "how would I say 'where is the metro' if I were in Moscow?"),
    ("translation", "If I were from Quebec, how would I say 'the bus is late'?"),
    ("qa", "I live in Tokyo, how do I say no politely?"),
    # frames in Chinese, Japanese and Korean that change or call a text into a language
    ("translation", "lighthouse 中文叫什么"),
    ("translation", "帮我把这段话改成英文：会议改到下周三了"),
    ("translation", "请问 user experience 用中文怎么表达？"),
    ("translation", "「お先に失礼します」、英語だとどうなる？"),
    ("translation", "이 메시지 영어로 바꿔 줘: 오늘 조금 늦을 것 같아요"),
    ("qa", "휴대폰 언어를 영어로 바꿔 줘"),
    ("qa", "把手机系统语言改成英文"),
    ("qa", "中文叫什么名字比较好听？"),
    # what a quoted foreign message says, asked in other words
    ("translation", "my neighbour shouted 'buenas noches, vecino' at me, meaning?"),
    ("translation", "A friend sent 'Ich vermisse dich sehr' — what is she telling me?"),
    ("qa", "is this the right meaning?"),
    # a people's ways, not their words (kind people_topic); their words stay translations
    ("qa", "if I were Peruvian, what would I cook on Sundays?"),
    ("qa", "why do the Finns love saunas so much"),
    ("qa", "how do Koreans celebrate Chuseok"),
    ("translation", "what do Chileans call a hot dog?"),
    ("translation", "if I were Greek, how would I say 'cheers'?"),
]


@pytest.fixture(scope="module")
def classifier() -> Classifier:
    routes = {"qa": RecognitionConfig(), "translation": RecognitionConfig(signals="translation")}
    return Classifier(routes, "qa")


@pytest.mark.parametrize(("route", "text"), CASES + CODE_PAIRS)
def test_phrasing(classifier: Classifier, route: str, text: str) -> None:
    decision = classifier.classify_text(text)
    assert decision.route == route, decision
