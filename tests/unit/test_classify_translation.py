"""Translation recognition across phrasings and languages, and its look-alikes."""

from __future__ import annotations

import pytest

from router.classify import Classifier
from router.classify.config import RecognitionConfig

# (request, expected target language or None when the request names none)
TRANSLATIONS = [
    # English, explicit
    ("Translate into French: I would like a table for two, please.", "French"),
    ("Please translate this paragraph to German.\n\nThe meeting starts at nine.", "German"),
    ("Can you translate 'good luck with your exam' into Italian?", "Italian"),
    ("translate to spanish: where is the train station", "Spanish"),
    (
        "I need this letter translated into Portuguese: Dear Sir, thank you for your reply.",
        "Portuguese",
    ),
    ("Give me the Korean translation of 'happy birthday'.", "Korean"),
    ("Could you provide a translation of the following into Russian? We close at six.", "Russian"),
    ("Render the following sentence into Arabic: The library opens on Sundays.", "Arabic"),
    ("Convert this sentence into Hindi: My brother works in a bank.", "Hindi"),
    (
        "Your task is to translate the given Japanese sentence into English.\n\n今日は寒いです。",
        "English",
    ),
    ("English to Japanese for 'umbrella'", "Japanese"),
    ("Translate from German to English: Wo ist der Bahnhof?", "English"),
    ("Act as my translator and put everything I write into Brazilian Portuguese.", "Portuguese"),
    # English, indirect ("never says translate")
    ("how do you say good night in korean", "Korean"),
    ("How would I say 'where is the bathroom' in Italian?", "Italian"),
    ("what's the french word for butterfly", "French"),
    ("what is the german word for cheese", "German"),
    ("what is water in russian", "Russian"),
    ("what is portuguese for thank you", "Portuguese"),
    ("how would i say good morning if i were brazilian", "Portuguese"),
    ("how do people say cheers in germany", "German"),
    ("what do italians say for good appetite in italian", "Italian"),
    ("What does 'je ne sais quoi' mean in English?", "English"),
    ("what does 'carpe diem' mean in english", "English"),
    ("the polite way to greet an elderly person in japanese", "Japanese"),
    ("In English please: Je voudrais réserver une chambre pour deux nuits.", "English"),
    # Chinese
    ("把这句话翻译成英文：今天天气很好，我们去公园散步吧。", "English"),
    ("请把下面的段落译成日语：春天来了，花都开了。", "Japanese"),
    ("帮我翻译一下这句话：I will be late for the meeting.", "Chinese"),
    ("“谢谢”用法语怎么说？", "French"),
    ("请将这封邮件翻译为德语。\n尊敬的先生，感谢您的来信。", "German"),
    ("给出下面英文句子的中文翻译：The weather is lovely today.", "Chinese"),
    ("“Carpe diem”是什么意思？", None),
    # Japanese
    ("この文を英語に翻訳してください：明日は雨が降るでしょう。", "English"),
    ("翻訳してください：Where is the nearest station?", "Japanese"),
    ("「ありがとう」はフランス語で何と言いますか？", "French"),
    # Korean
    ("이 문장을 영어로 번역해 주세요: 오늘은 날씨가 좋네요.", "English"),
    ("다음 문장을 일본어로 번역해줘: 저는 학생입니다.", "Japanese"),
    # French
    ("Traduis en anglais : Je suis très fatigué ce soir.", "English"),
    ("Peux-tu traduire cette phrase en espagnol ? Le chat dort sur le canapé.", "Spanish"),
    ("Comment dit-on « bonne chance » en allemand ?", "German"),
    # German
    ("Übersetze ins Deutsche: The train is running late today.", "German"),
    ("Bitte übersetze diesen Satz ins Englische: Ich habe heute keine Zeit.", "English"),
    ("Wie sagt man 'Feierabend' auf Englisch?", "English"),
    # Spanish
    ("Traduce al español: I have two brothers and a sister.", "Spanish"),
    ("¿Puedes traducir esto al inglés? Mañana vamos a la playa.", "English"),
    ("¿Cómo se dice 'mariposa' en inglés?", "English"),
    # Italian
    ("Traduci in inglese: Domani andiamo al mare con gli amici.", "English"),
    ("Come si dice 'arrivederci' in tedesco?", "German"),
    # Portuguese
    ("Traduza para o inglês: Eu gosto muito de café pela manhã.", "English"),
    ("Como se diz 'saudade' em inglês?", "English"),
    # Russian
    ("Переведи на английский: Я люблю читать книги по вечерам.", "English"),
    ("Переведите этот текст на немецкий язык: Сегодня очень холодно.", "German"),
    ("Как будет «спасибо» по-японски?", "Japanese"),
    # Arabic
    ("ترجم هذه الجملة إلى الإنجليزية: أنا أحب القراءة كثيرا.", "English"),
    ("كيف أقول شكرا بالفرنسية؟", "French"),
    # Hindi
    ("इस वाक्य का अंग्रेज़ी में अनुवाद करें: मैं कल दिल्ली जा रहा हूँ।", "English"),
    ("Translate this Hindi sentence into English: मुझे चाय पसंद है।", "English"),
    # Other languages
    ("Vertaal naar het Engels: Ik woon in Amsterdam.", "English"),
    ("Przetłumacz na angielski: Dzień dobry, jak się masz?", "English"),
    ("Översätt till engelska: Jag bor i Stockholm.", "English"),
]

NOT_TRANSLATIONS = [
    # questions about languages and words
    "Which language is spoken in Brazil?",
    "What does the word 'translate' come from?",
    "What is the origin of the word 'algebra'?",
    "How many people speak Japanese as a first language?",
    "Is Korean harder to learn than Japanese?",
    "What does serendipity mean?",
    "define ephemeral",
    "how do you spell necessary",
    "How do you pronounce the letter 'r' in Spanish words?",
    "什么是自然语言处理？",
    "为什么英语是世界上使用最广泛的语言？",
    "学习日语最好的方法是什么？",
    # questions written in a foreign language
    "¿Cuál es la capital de Australia?",
    "Quelle est la meilleure façon de cuisiner des pâtes ?",
    "Wie funktioniert ein Elektromotor?",
    "Come posso migliorare la mia produttività?",
    "Qual é o maior rio do mundo?",
    "Почему небо голубое?",
    "ما هي عاصمة المغرب؟",
    "भारत की राजधानी क्या है?",
    "東京で一番高いビルは何ですか？",
    "한국의 수도는 어디입니까?",
    "北京有哪些值得去的景点？",
    # checking or discussing translations
    "Is this translation correct? 'Je suis plein' for 'I am full'.",
    "Can you check whether my translation into German is accurate? Ich bin ein Student.",
    "这个翻译对吗？“I am full”翻译成“我吃饱了”。",
    "What are common metrics for evaluating machine translation?",
    "How does Google Translate work?",
    "Why is poetry so hard to translate?",
    "How can I become a professional translator?",
    "解释一下机器翻译的原理。",
    # identifying a language
    "Identify the language of this sentence: Dzień dobry, jak się masz?",
    "What language is this? 'Tere hommikust'",
    "判断下面这句话是什么语言：Guten Morgen.",
    # settings and instructions in a language
    "change your language to Russian",
    "can you set the default language to german",
    "Please answer in English from now on.",
    "请用英文回答：太阳系有几颗行星？",
    "Write a poem in French about the sea.",
    "Write me a short story in Spanish for beginners.",
    "Summarise this article in German.\n\nThe city council approved the new budget.",
    # paraphrase, rewriting within one language
    "Paraphrase this sentence: The quick brown fox jumps over the lazy dog.",
    "Rewrite this paragraph in simpler words: The committee deliberated at length.",
    "请将下面的句子改写得更正式一些：我明天不来了。",
    # conversions that are not between human languages
    "Convert 5 miles to kilometers.",
    "convert 100 dollars to euros",
    "Translate this Python function into JavaScript: def add(a, b): return a + b",
    'Convert this JSON into YAML: {"a": 1}',
    "How does a 10% rise in rates translate into monthly payments?",
    "Convert the given HTML into Markdown.\n\n<b>bold</b>",
    # plain requests
    "What is the capital of France?",
    "Tell me about the history of the Spanish language.",
    "Recommend some good French films.",
    "How long does it take to fly from London to Tokyo?",
]


@pytest.fixture(scope="module")
def classifier() -> Classifier:
    routes = {"qa": RecognitionConfig(), "translation": RecognitionConfig(signals="translation")}
    return Classifier(routes, "qa")


@pytest.mark.parametrize(("text", "target"), TRANSLATIONS)
def test_translation_recognised(classifier: Classifier, text: str, target: str | None) -> None:
    decision = classifier.classify_text(text)
    assert decision.route == "translation", decision
    assert decision.tier == "language"
    if target is not None:
        assert decision.target_language == target, decision


@pytest.mark.parametrize("text", NOT_TRANSLATIONS)
def test_not_translation(classifier: Classifier, text: str) -> None:
    decision = classifier.classify_text(text)
    assert decision.route == "qa", decision


@pytest.mark.parametrize(
    ("text", "source"),
    [
        ("Translate into English: Der Zug hat heute leider zwei Stunden Verspätung.", "German"),
        ("请把这句话翻译成英文：我们明天早上八点在学校门口见面。", "Chinese"),
        ("Traduce al inglés: Mañana por la mañana vamos a visitar a mis abuelos.", "Spanish"),
        (
            "Translate into French:\n\nThe museum is closed on Mondays and public holidays.",
            "English",
        ),
    ],
)
def test_source_language_detected(classifier: Classifier, text: str, source: str) -> None:
    decision = classifier.classify_text(text)
    assert decision.route == "translation"
    assert decision.source_language == source


def test_target_inferred_from_request_language(classifier: Classifier) -> None:
    decision = classifier.classify_text("请翻译：The weather is nice today and we should go out.")
    assert decision.target_language == "Chinese"
    assert decision.source_language == "English"


def test_decision_carries_reason(classifier: Classifier) -> None:
    decision = classifier.classify_text("traduce al español: good morning")
    assert "traduce" in decision.reason and "Spanish" in decision.reason
    assert 0 < decision.confidence <= 1


@pytest.mark.parametrize(
    ("text", "payload"),
    [
        (
            "Translate into French: The Meeting Is On Monday, Anna.",
            "The Meeting Is On Monday, Anna.",
        ),
        ('How do you say "Happy Birthday, Maria" in Spanish?', "Happy Birthday, Maria"),
        ("Übersetze ins Englische: Die Katze von Herrn Müller", "Die Katze von Herrn Müller"),
        # full-width forms are still NFKC-normalised; only the case is kept
        ("Translate into German: ＡＢＣ Corp. is hiring", "ABC Corp. is hiring"),
    ],
)
def test_payload_keeps_the_case_it_was_written_in(
    classifier: Classifier, text: str, payload: str
) -> None:
    """The rules read casefolded text, but the route translates the text as the user wrote it
    (names, German nouns)."""
    decision = classifier.classify_text(text)
    assert decision.route == "translation"
    assert decision.payload == payload


def test_payload_falls_back_to_casefolded_when_lengths_differ(classifier: Classifier) -> None:
    # "ß" casefolds to "ss": offsets no longer line up, so the casefolded payload is kept
    decision = classifier.classify_text("Übersetze ins Englische: Die Straße ist nass.")
    assert decision.payload == "die strasse ist nass."
