# ruff: noqa: E501  (template tables: one template per line)
"""Requests written natively in 21 frame languages, for both labels (issue 18, fourth round).

Each frame language has a table of language names in the forms its grammar needs (`name`: the
bare name, `to`: "into X", `in`: "in X"), translation asks in many word orders and registers
(colloquial, terse, polite, "what's the X word for", "in X, … is said how", "how do ⟨people⟩
say"), and look-alikes that are no translation (learning or judging a language, writing or
answering *in* it, "is this translation right?", settings, choice questions, grammar and
sentiment tasks about a sentence in the frame's language, questions about the frame's own
words). The payload of a translation is an English phrase (code-switching) or a phrase in the
frame's language; both labels draw on the same payloads.

Written from the label definitions and knowledge of how people ask, not from any evaluation
set or validation line.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Frame:
    # target language → (name, into-form, in-form)
    names: dict[str, tuple[str, str, str]]
    # phrases in the frame's language (payloads, and sentences the qa tasks are about)
    own: list[str]
    # translation asks; slots {q} quoted payload, {p} bare payload, {name}/{to}/{in} target
    asks: list[str]
    # asks for the meaning of a foreign phrase {q} (no target)
    meaning: list[str]
    # no translation: {name}/{to}/{in} a language, {name2} another, {s} a quoted own sentence,
    # {pair} a quoted foreign phrase, {question} a question in the frame's language, {e} a quoted
    # Latin-script string (code, an error, a brand)
    qa: list[str]
    questions: list[str]
    quote: tuple[str, str] = ('"', '"')


# fmt: off
FRAMES: dict[str, Frame] = {
    "Chinese": Frame(
        names={"English": ("英语", "英文", "英文"), "Japanese": ("日语", "日文", "日语"), "Korean": ("韩语", "韩文", "韩语"),
               "French": ("法语", "法语", "法语"), "German": ("德语", "德语", "德语"), "Spanish": ("西班牙语", "西班牙语", "西班牙语"),
               "Russian": ("俄语", "俄语", "俄语"), "Chinese": ("中文", "中文", "中文"), "Cantonese": ("粤语", "粤语", "粤语")},
        own=["我马上到", "这个周末你有空吗", "外面在下大雨", "别担心，我来处理", "饭菜快凉了", "我把钥匙忘在家里了", "今天的会议推迟了", "路上小心"],
        asks=["{q}用{name}怎么说", "{q}{name}咋说啊", "{q} {to}是啥", "请问{q}翻成{to}是什么？", "{name}里{q}怎么讲",
              "想问下{q}的{to}说法", "把{q}换成{to}", "{q}——{to}？", "{q}用{name}该怎么表达才地道？", "帮忙把这句改成{to}：{p}",
              "{q}这句话{to}怎么写", "求{q}的{to}翻译", "麻烦用{name}说一下{q}", "我想用{name}说{q}，怎么说？", "{p}（{to}）",
              "如果是{name}的话，{q}怎么说？", "{name}中{q}应该怎么讲比较礼貌？", "{q}在{name}里对应哪个词？"],
        meaning=["{q}是什么意思？", "{q}啥意思", "请问{q}是什么意思", "{q}这句话什么意思啊", "朋友给我发了{q}，这是什么意思？", "{q}的中文意思是什么？"],
        qa=["用Python把字符串{e}反转后输出", "写一个函数统计{e}里有多少个元音字母", "{e}这个单词是不是拼错了？", "{e}这个牌子是哪个国家的？", "把{e}里的空格全部去掉的正则怎么写？", "程序报错{e}，怎么解决？", "请把字符串{e}全部改成大写并输出",
            "{name}难学吗？", "怎么才能快速提高{name}口语？", "用{name}写一首关于秋天的诗", "请用{name}回答：{question}",
            "这个翻译对不对：{pair}", "把手机系统语言改成{to}要怎么设置？", "{name}和{name2}有什么区别？",
            "判断下面句子的情感是正面还是负面：{s}", "下面这句话有语病吗？{s}", "{s}这句话里有几个字？",
            "单选题：中国的首都是哪里？A. 上海 B. 北京 C. 广州", "学{name}有什么好用的APP推荐？", "{question}",
            "请把{s}改写得更正式一些", "帮我用{name}写一封请假邮件", "以后请用{name}和我聊天", "{s}这句话用了什么修辞手法？"],
        questions=["失眠了怎么办？", "推荐几本好看的科幻小说", "红烧肉怎么做？", "北京到上海坐高铁要多久？", "怎么才能存下钱？"],
        quote=("“", "”"),
    ),
    "Japanese": Frame(
        names={"English": ("英語", "英語", "英語"), "Chinese": ("中国語", "中国語", "中国語"), "Korean": ("韓国語", "韓国語", "韓国語"),
               "French": ("フランス語", "フランス語", "フランス語"), "German": ("ドイツ語", "ドイツ語", "ドイツ語"),
               "Spanish": ("スペイン語", "スペイン語", "スペイン語"), "Japanese": ("日本語", "日本語", "日本語"), "Italian": ("イタリア語", "イタリア語", "イタリア語")},
        own=["駅まで迎えに行くね", "今日は本当に暑いですね", "少し遅れます", "傘を持っていってね", "もう一回言ってもらえますか", "気にしないで"],
        asks=["{q}って{name}で何て言うの？", "{q}を{to}にして", "{q}は{name}で何と言いますか", "{name}で{q}はどう言えばいい？",
              "{q}、{name}だと何？", "{q}を{to}に訳してください", "{to}に直して：{p}", "{q}の{name}表現を教えて",
              "{name}で{q}って言いたいんだけど", "{q}を{name}で言うと？", "{q} {name}で", "次の文を{to}に訳して。{p}",
              "{q}は{name}でどう表現しますか？丁寧な言い方でお願いします。"],
        meaning=["{q}ってどういう意味？", "{q}の意味を教えてください", "{q}ってなんて意味？", "友達から{q}って来たんだけど、どういう意味？"],
        qa=["Pythonで文字列{e}を逆順にして出力して", "{e}というエラーが出ます。どうすればいいですか？", "{e}はどこの国のブランド？", "{e}の文字数を数えるコードを書いて",
            "{name}の勉強法を教えてください", "{name}は難しいですか？", "{name}でスピーチ原稿を書いて", "{name}で答えて：{question}",
            "この翻訳は合っていますか？{pair}", "スマホの言語を{to}に変える方法は？", "{name}と{name2}の違いは何ですか？",
            "次の文は敬語として正しいですか？{s}", "次の文の感情はポジティブですか、ネガティブですか。{s}",
            "次の問題の正しい答えを選んでください。日本で一番高い山は？ 1. 富士山 2. 北岳 3. 槍ヶ岳", "{question}",
            "{s}を丁寧な言い方に直して", "この文の主語はどれですか？{s}", "{name}の資格試験にはどんなものがありますか？"],
        questions=["肩こりを治す方法は？", "京都のおすすめの観光地は？", "カレーの隠し味を教えて", "転職するべきか迷っています"],
        quote=("「", "」"),
    ),
    "Korean": Frame(
        names={"English": ("영어", "영어", "영어"), "Japanese": ("일본어", "일본어", "일본어"), "Chinese": ("중국어", "중국어", "중국어"),
               "French": ("프랑스어", "프랑스어", "프랑스어"), "German": ("독일어", "독일어", "독일어"), "Spanish": ("스페인어", "스페인어", "스페인어"),
               "Korean": ("한국어", "한국어", "한국어")},
        own=["지금 가는 중이야", "오늘 날씨 진짜 좋다", "잠깐만 기다려 주세요", "많이 드세요", "내일 연락할게"],
        asks=["{q} {to}로 뭐라고 해?", "{q}를 {to}로 번역해줘", "{to}로 {q} 어떻게 말해요?", "{q} {name}로 하면?", "{to}로 바꿔 줘: {p}",
              "{q}는 {name}로 어떻게 표현해요?", "{q} {name}로 알려줘", "{name}로 {q}라고 하고 싶은데 어떻게 말해?"],
        meaning=["{q}가 무슨 뜻이에요?", "{q} 무슨 의미야?", "{q} 뜻 알려줘"],
        qa=["파이썬으로 문자열 {e}를 거꾸로 출력해 줘", "{e} 오류가 나는데 어떻게 해결해?", "{e}는 어느 나라 브랜드야?",
            "{name} 공부 어떻게 시작해요?", "{name}가 어려워요?", "{name}로 자기소개서 써 줘", "{name}로 대답해 줘: {question}",
            "이 번역 맞아요? {pair}", "휴대폰 언어를 {to}로 바꾸는 법", "{name}와 {name2}의 차이가 뭐예요?",
            "다음 문장의 감정을 분류하세요: {s}", "다음 문장 맞춤법 검사해 줘: {s}", "{question}"],
        questions=["서울에서 데이트하기 좋은 곳 추천해 줘", "감기 빨리 낫는 법", "다이어트 식단 짜 줘"],
    ),
    "Hindi": Frame(
        names={"English": ("अंग्रेज़ी", "अंग्रेज़ी", "अंग्रेज़ी"), "Hindi": ("हिंदी", "हिंदी", "हिंदी"), "French": ("फ्रेंच", "फ्रेंच", "फ्रेंच"),
               "Japanese": ("जापानी", "जापानी", "जापानी"), "Marathi": ("मराठी", "मराठी", "मराठी"), "Tamil": ("तमिल", "तमिल", "तमिल"),
               "Urdu": ("उर्दू", "उर्दू", "उर्दू"), "German": ("जर्मन", "जर्मन", "जर्मन")},
        own=["मैं रास्ते में हूँ", "आज बहुत गर्मी है", "थोड़ा धीरे बोलिए", "खिड़की खोल दो", "दरवाज़ा बंद कर दो"],
        asks=["{q} को {name} में क्या कहते हैं?", "{q} {name} में कैसे बोलें?", "{q} का {name} क्या होगा?", "इसे {name} में बोलो: {q}",
              "{q} का {name} में अनुवाद करो", "{name} में {q} कैसे लिखते हैं?", "{q} को {name} में कैसे कहेंगे?", "{p} — इसका {name} बताओ",
              "मुझे {q} {name} में चाहिए", "{name} में {q} को क्या बोलते हैं?"],
        meaning=["{q} का मतलब क्या है?", "{q} का क्या अर्थ है?", "{q} मतलब?"],
        qa=["Python में {e} स्ट्रिंग को उल्टा कैसे करें?", "{e} एरर आ रहा है, क्या करूँ?", "{e} किस देश की कंपनी है?",
            "{name} सीखने का सबसे अच्छा तरीका क्या है?", "{name} में एक निबंध लिखो", "{name} में जवाब दो: {question}",
            "क्या यह अनुवाद सही है? {pair}", "फ़ोन की भाषा {name} में कैसे बदलें?", "{name} और {name2} में से कौन सी भाषा आसान है?",
            "इस वाक्य की भावना बताइए: {s}", "इस वाक्य में गलती ढूँढो: {s}", "सही विकल्प चुनिए: सूरज किस दिशा में उगता है? (A) पूर्व (B) पश्चिम (C) उत्तर",
            "{question}", "इस वाक्य का विषय क्या है? {s}"],
        questions=["वज़न कम करने के लिए क्या खाएँ?", "दिल्ली में घूमने की अच्छी जगहें बताओ", "अच्छी नींद के लिए क्या करें?"],
    ),
    "Hinglish": Frame(
        names={"English": ("english", "english", "english"), "Hindi": ("hindi", "hindi", "hindi"), "Punjabi": ("punjabi", "punjabi", "punjabi"),
               "Marathi": ("marathi", "marathi", "marathi"), "Tamil": ("tamil", "tamil", "tamil"), "Bengali": ("bangla", "bangla", "bangla"),
               "French": ("french", "french", "french")},
        own=["main raste mein hoon", "aaj bahut garmi hai", "thoda dheere bolo", "khidki khol do", "darwaza band kar do"],
        asks=["{q} ko {name} mein kya kehte hain?", "{q} {name} mein kaise bolte hain", "{q} ka {name} kya hoga bhai", "{name} mein {q} kaise bolu?",
              "yeh {name} mein likh do: {p}", "{q} ko {name} mein translate karo", "{q} {name} me bata do", "{name} mein {q} ko kya bolenge?",
              "bhai {q} ka {name} batao", "{q} ko {name} me kaise kahenge"],
        meaning=["{q} ka matlab kya hai?", "{q} matlab?", "{q} ka kya meaning hai yaar"],
        qa=["{name} kaise seekhein? tips do", "{name} mein ek shayari likho", "{name} mein jawab do: {question}",
            "yeh translation theek hai kya? {pair}", "phone ki language {name} kaise karein?", "{name} aur {name2} mein kya farak hai?",
            "is line ka sentiment batao: {s}", "{question}", "is sentence mein grammar galat hai kya? {s}"],
        questions=["weight kam karne ke liye kya khaun?", "acchi neend ke liye kya karein?", "goa trip ke liye budget kitna chahiye?"],
    ),
    "Arabic": Frame(
        names={"English": ("الإنجليزية", "الإنجليزية", "الإنجليزية"), "French": ("الفرنسية", "الفرنسية", "الفرنسية"),
               "German": ("الألمانية", "الألمانية", "الألمانية"), "Spanish": ("الإسبانية", "الإسبانية", "الإسبانية"),
               "Arabic": ("العربية", "العربية", "العربية"), "Turkish": ("التركية", "التركية", "التركية")},
        own=["أنا متأخر قليلا", "الجو حار اليوم", "انتظرني عند الباب", "تصبح على خير", "وين المحطة؟"],
        asks=["كيف أقول {q} ب{name}؟", "{q} ب{name} شو؟", "ترجم {q} إلى {to}", "ما هي كلمة {q} ب{name}؟", "كيف نقول {q} باللغة {name}؟",
              "ممكن تقول لي {q} ب{name}؟", "حوّل هذه الجملة إلى {to}: {p}", "{q} كيف تنقال ب{name}؟"],
        meaning=["ما معنى {q}؟", "شو يعني {q}؟", "ايش معنى {q}؟", "وش معنى {q}؟"],
        qa=["كيف أعكس النص {e} في بايثون؟", "يظهر لي خطأ {e}، ما الحل؟", "{e} شركة من أي بلد؟",
            "هل اللغة {name} صعبة؟", "كيف أتعلم {name} بسرعة؟", "اكتب لي رسالة ب{name} لمديري", "أجب ب{name}: {question}",
            "هل هذه الترجمة صحيحة؟ {pair}", "كيف أغير لغة الهاتف إلى {to}؟", "ما الفرق بين {name} و{name2}؟",
            "صنّف هذه الجملة إيجابية أو سلبية: {s}", "{question}", "أعرب الجملة التالية: {s}"],
        questions=["ما فوائد الصيام؟", "كيف أحضر الكبسة؟", "ما هي عاصمة أستراليا؟"],
    ),
    "Persian": Frame(
        names={"English": ("انگلیسی", "انگلیسی", "انگلیسی"), "French": ("فرانسوی", "فرانسوی", "فرانسوی"), "German": ("آلمانی", "آلمانی", "آلمانی"),
               "Arabic": ("عربی", "عربی", "عربی"), "Persian": ("فارسی", "فارسی", "فارسی"), "Turkish": ("ترکی", "ترکی", "ترکی")},
        own=["من تو راهم", "امروز هوا خیلی گرمه", "یه لحظه صبر کن", "شب بخیر"],
        asks=["{q} به {name} چی میشه؟", "{q} رو به {to} ترجمه کن", "به {name} {q} چطور میگن؟", "این جمله رو به {to} برگردون: {p}",
              "{q} به {name} چی میگن؟", "چطور بگم {q} به {name}؟"],
        meaning=["{q} یعنی چی؟", "معنی {q} چیه؟", "{q} به چه معناست؟"],
        qa=["چطور رشته {e} رو در پایتون برعکس کنم؟", "خطای {e} میده، چیکار کنم؟",
            "یادگیری {name} سخته؟", "یه شعر به {name} بنویس", "به {name} جواب بده: {question}", "این ترجمه درسته؟ {pair}",
            "چطور زبان گوشی رو {name} کنم؟", "فرق {name} و {name2} چیه؟", "{question}", "این جمله مثبته یا منفی؟ {s}"],
        questions=["برای سرماخوردگی چی بخورم؟", "بهترین شهرهای ایران برای سفر کدومن؟"],
    ),
    "Russian": Frame(
        names={"English": ("английский", "на английский", "по-английски"), "German": ("немецкий", "на немецкий", "по-немецки"),
               "French": ("французский", "на французский", "по-французски"), "Spanish": ("испанский", "на испанский", "по-испански"),
               "Japanese": ("японский", "на японский", "по-японски"), "Russian": ("русский", "на русский", "по-русски"),
               "Chinese": ("китайский", "на китайский", "по-китайски"), "Italian": ("итальянский", "на итальянский", "по-итальянски")},
        own=["я немного опоздаю", "на улице очень холодно", "подожди меня у входа", "с днём рождения", "не за что"],
        asks=["как {in} будет {q}?", "{q} {in} как?", "как сказать {q} {in}", "переведи {q} {to}", "{q} — это {in} как будет?",
              "как {in} сказать {q}?", "скажи {q} {in}", "помоги перевести {to}: {p}", "{in} {q} — как?", "подскажите, как {in} {q}",
              "как правильно {in} сказать {q}, вежливо?"],
        meaning=["что значит {q}?", "что означает {q}?", "{q} — это что значит?", "мне написали {q}, что это значит?"],
        qa=["как в Python перевернуть строку {e}?", "выдаёт ошибку {e}, что делать?", "{e} — это бренд какой страны?", "напиши регулярку, которая найдёт {e} в тексте",
            "сложно ли учить {name}?", "как быстро выучить {name}?", "напиши письмо {in} начальнику", "ответь {in}: {question}",
            "правильный ли перевод: {pair}", "как переключить язык телефона {to}?", "чем {name} отличается от {name2}?",
            "определи тональность предложения: {s}", "найди ошибку в предложении: {s}", "{question}",
            "выбери правильный ответ: столица Франции? А) Берлин Б) Париж В) Рим"],
        questions=["как приготовить сырники?", "почему болит голова по утрам?", "что посмотреть в Казани?"],
        quote=("«", "»"),
    ),
    "Ukrainian": Frame(
        names={"English": ("англійська", "англійською", "англійською"), "German": ("німецька", "німецькою", "німецькою"),
               "Polish": ("польська", "польською", "польською"), "Ukrainian": ("українська", "українською", "українською"),
               "French": ("французька", "французькою", "французькою")},
        own=["я трохи запізнюся", "на вулиці дуже холодно", "зачекай мене біля входу", "з днем народження"],
        asks=["як {in} буде {q}?", "перекладіть {to}: {p}", "як сказати {q} {in}?", "{q} {in} — як?", "переклади {q} {to}"],
        meaning=["що означає {q}?", "що значить {q}?"],
        qa=["як у Python перевернути рядок {e}?", "видає помилку {e}, що робити?",
            "скільки часу треба, щоб вивчити {name}?", "напиши вірш {in}", "відповідай {in}: {question}", "чи правильний переклад: {pair}",
            "як змінити мову телефону на {name}?", "{question}"],
        questions=["як приготувати борщ?", "що подивитися у Львові?"],
        quote=("«", "»"),
    ),
    "Spanish": Frame(
        names={"English": ("inglés", "al inglés", "en inglés"), "French": ("francés", "al francés", "en francés"),
               "German": ("alemán", "al alemán", "en alemán"), "Japanese": ("japonés", "al japonés", "en japonés"),
               "Spanish": ("español", "al español", "en español"), "Italian": ("italiano", "al italiano", "en italiano"),
               "Portuguese": ("portugués", "al portugués", "en portugués"), "Chinese": ("chino", "al chino", "en chino")},
        own=["llego en diez minutos", "hace un calor horrible", "¿a qué hora abren?", "se me olvidaron las llaves", "qué pena"],
        asks=["¿cómo se dice {q} {in}?", "{q} {in}?", "¿{q} {in} cómo sería?", "pásame {q} {to}", "tradúceme {q} {to}",
              "¿cuál es la palabra {in} para {q}?", "{in}, ¿cómo se dice {q}?", "¿me ayudas a decir {q} {in}?", "ponme esto {in}: {p}",
              "¿cómo digo {q} {in}?", "necesito {q} {in}, porfa", "¿qué es {q} {in}?", "oye, {q} {in}?", "¿cómo le dicen a {q} {in}?"],
        meaning=["¿qué significa {q}?", "¿qué quiere decir {q}?", "{q} ¿qué es?", "me escribieron {q}, ¿qué significa?"],
        qa=["¿cuánto se tarda en aprender {name}?", "¿cómo puedo mejorar mi {name}?", "escríbeme un poema {in}", "contesta {in}: {question}",
            "¿está bien esta traducción? {pair}", "cambia el idioma del móvil {to}", "¿qué diferencia hay entre el {name} y el {name2}?",
            "¿esta frase es positiva o negativa? {s}", "corrige la ortografía: {s}", "{question}", "¿en qué países se habla {name}?",
            "elige la respuesta correcta: ¿cuál es el planeta más grande? a) Marte b) Júpiter c) Venus"],
        questions=["¿cómo hago una paella?", "¿qué ver en Sevilla?", "¿por qué me duele la espalda?"],
    ),
    "French": Frame(
        names={"English": ("anglais", "en anglais", "en anglais"), "Spanish": ("espagnol", "en espagnol", "en espagnol"),
               "German": ("allemand", "en allemand", "en allemand"), "Italian": ("italien", "en italien", "en italien"),
               "French": ("français", "en français", "en français"), "Japanese": ("japonais", "en japonais", "en japonais"),
               "Arabic": ("arabe", "en arabe", "en arabe")},
        own=["je suis en retard", "il fait un froid de canard", "on se voit demain", "tu me manques", "ça marche"],
        asks=["comment on dit {q} {in} ?", "c'est quoi {q} {in} ?", "{q} {in} ?", "tu peux me dire {q} {in} ?", "traduis {q} {in}",
              "{in}, {q} ça se dit comment ?", "quel est le mot {in} pour {q} ?", "mets-moi ça {in} : {p}", "{q}, {in} stp",
              "comment dire {q} {in} ?"],
        meaning=["que veut dire {q} ?", "ça veut dire quoi {q} ?", "{q} ça veut dire quoi ?", "que signifie {q} ?"],
        qa=["est-ce que l'{name} est difficile ?", "comment progresser en {name} ?", "écris-moi un poème {in}", "réponds {in} : {question}",
            "cette traduction est-elle correcte ? {pair}", "comment mettre mon téléphone {in} ?", "quelle différence entre l'{name} et l'{name2} ?",
            "cette phrase est-elle positive ou négative ? {s}", "corrige les fautes : {s}", "{question}"],
        questions=["comment faire une pâte à crêpes ?", "que visiter à Lyon ?", "pourquoi mon chat miaule la nuit ?"],
    ),
    "German": Frame(
        names={"English": ("Englisch", "ins Englische", "auf Englisch"), "French": ("Französisch", "ins Französische", "auf Französisch"),
               "Spanish": ("Spanisch", "ins Spanische", "auf Spanisch"), "Italian": ("Italienisch", "ins Italienische", "auf Italienisch"),
               "German": ("Deutsch", "ins Deutsche", "auf Deutsch"), "Japanese": ("Japanisch", "ins Japanische", "auf Japanisch"),
               "Turkish": ("Türkisch", "ins Türkische", "auf Türkisch")},
        own=["ich komme etwas später", "es regnet in Strömen", "wir sehen uns morgen", "das ist mir egal", "Gesundheit"],
        asks=["wie sagt man {q} {in}?", "was heißt {q} {in}?", "{q} {in}?", "wie heißt {q} {in}?", "übersetz mal {q} {to}",
              "{in} bitte: {p}", "was ist {q} {in}?", "{in}, wie sagt man da {q}?", "wie würde man {q} {in} sagen?",
              "kannst du mir {q} {in} sagen?", "was ist das {name}e Wort für {q}?"],
        meaning=["was bedeutet {q}?", "was heißt {q} eigentlich?", "{q} – was soll das heißen?"],
        qa=["ist {name} schwer zu lernen?", "wie lerne ich am besten {name}?", "schreib mir ein Gedicht {in}", "antworte {in}: {question}",
            "stimmt die Übersetzung? {pair}", "wie stelle ich mein Handy {in} um?", "was ist der Unterschied zwischen {name} und {name2}?",
            "ist der Satz positiv oder negativ? {s}", "korrigiere bitte die Rechtschreibung: {s}", "{question}"],
        questions=["wie backe ich einen Käsekuchen?", "was kann man in Hamburg machen?", "wie spare ich Strom?"],
        quote=("„", "“"),
    ),
    "Portuguese": Frame(
        names={"English": ("inglês", "para o inglês", "em inglês"), "Spanish": ("espanhol", "para o espanhol", "em espanhol"),
               "French": ("francês", "para o francês", "em francês"), "Japanese": ("japonês", "para o japonês", "em japonês"),
               "Portuguese": ("português", "para o português", "em português"), "German": ("alemão", "para o alemão", "em alemão")},
        own=["estou atrasado", "está um calor danado", "a gente se vê amanhã", "que legal", "pode deixar"],
        asks=["como se fala {q} {in}?", "como é {q} {in}?", "{q} {in}?", "traduz {q} {to}", "qual é a palavra {in} para {q}?",
              "me ajuda a dizer {q} {in}", "{in}, como fica {q}?", "passa isso {to}: {p}", "como eu digo {q} {in}?", "o que é {q} {in}?"],
        meaning=["o que significa {q}?", "o que quer dizer {q}?", "{q} quer dizer o quê?"],
        qa=["é difícil aprender {name}?", "como melhorar meu {name}?", "escreva um poema {in}", "responda {in}: {question}",
            "essa tradução ficou boa? {pair}", "como mudar o idioma do celular {to}?", "qual a diferença entre {name} e {name2}?",
            "essa frase é positiva ou negativa? {s}", "{question}", "corrija a gramática: {s}"],
        questions=["como fazer brigadeiro?", "o que fazer em Salvador?", "qual o melhor horário para treinar?"],
    ),
    "Italian": Frame(
        names={"English": ("inglese", "in inglese", "in inglese"), "French": ("francese", "in francese", "in francese"),
               "German": ("tedesco", "in tedesco", "in tedesco"), "Spanish": ("spagnolo", "in spagnolo", "in spagnolo"),
               "Italian": ("italiano", "in italiano", "in italiano")},
        own=["sono in ritardo", "fa un caldo pazzesco", "ci vediamo domani", "che peccato", "magari"],
        asks=["come si dice {q} {in}?", "{q} {in}?", "mi traduci {q} {in}?", "qual è la parola {in} per {q}?", "{in}, {q} come si dice?",
              "com'è {q} {in}?", "dimmi {q} {in}"],
        meaning=["che vuol dire {q}?", "cosa significa {q}?", "{q} che significa?"],
        qa=["l'{name} è difficile da imparare?", "scrivi una poesia {in}", "rispondi {in}: {question}", "questa traduzione è giusta? {pair}",
            "come cambio la lingua del telefono {in}?", "che differenza c'è tra {name} e {name2}?", "{question}", "questa frase è positiva o negativa? {s}"],
        questions=["come si fa il tiramisù?", "cosa vedere a Napoli?"],
    ),
    "Turkish": Frame(
        names={"English": ("İngilizce", "İngilizceye", "İngilizcede"), "German": ("Almanca", "Almancaya", "Almancada"),
               "French": ("Fransızca", "Fransızcaya", "Fransızcada"), "Turkish": ("Türkçe", "Türkçeye", "Türkçede"),
               "Arabic": ("Arapça", "Arapçaya", "Arapçada")},
        own=["biraz geç kalacağım", "hava çok sıcak", "yarın görüşürüz", "kolay değil"],
        asks=["{q} {in} nasıl denir?", "{q} {in} ne demek?", "{q} {name} nasıl söylenir?", "bunu {to} çevirir misin: {p}", "{name} {q} nasıl derim?",
              "{q} {to} çevir"],
        meaning=["{q} ne demek?", "{q} ne anlama geliyor?"],
        qa=["{name} öğrenmek zor mu?", "{name} bir şiir yaz", "{name} cevap ver: {question}", "bu çeviri doğru mu? {pair}",
            "telefonun dilini {to} nasıl çeviririm?", "{question}", "bu cümle olumlu mu olumsuz mu? {s}"],
        questions=["İstanbul'da nereleri gezmeliyim?", "menemen nasıl yapılır?"],
    ),
    "Vietnamese": Frame(
        names={"English": ("tiếng Anh", "sang tiếng Anh", "tiếng Anh"), "Japanese": ("tiếng Nhật", "sang tiếng Nhật", "tiếng Nhật"),
               "Vietnamese": ("tiếng Việt", "sang tiếng Việt", "tiếng Việt"), "French": ("tiếng Pháp", "sang tiếng Pháp", "tiếng Pháp"),
               "Chinese": ("tiếng Trung", "sang tiếng Trung", "tiếng Trung"), "Korean": ("tiếng Hàn", "sang tiếng Hàn", "tiếng Hàn")},
        own=["mình đang trên đường", "trời nóng quá", "mai gặp lại nhé", "đợi mình một chút"],
        asks=["{q} {in} là gì?", "{q} nói {in} thế nào?", "dịch giúp mình {q} {to}", "{in} {q} nói sao?", "{q} {in} nói như thế nào vậy?"],
        meaning=["{q} nghĩa là gì?", "{q} là gì vậy?"],
        qa=["học {name} có khó không?", "viết một bài thơ bằng {name}", "trả lời bằng {name}: {question}", "bản dịch này đúng không? {pair}",
            "làm sao đổi ngôn ngữ điện thoại {to}?", "{question}"],
        questions=["làm sao để ngủ ngon hơn?", "Đà Nẵng có gì chơi?"],
    ),
    "Indonesian": Frame(
        names={"English": ("bahasa Inggris", "ke bahasa Inggris", "dalam bahasa Inggris"), "Japanese": ("bahasa Jepang", "ke bahasa Jepang", "dalam bahasa Jepang"),
               "Indonesian": ("bahasa Indonesia", "ke bahasa Indonesia", "dalam bahasa Indonesia"), "Arabic": ("bahasa Arab", "ke bahasa Arab", "dalam bahasa Arab"),
               "Korean": ("bahasa Korea", "ke bahasa Korea", "dalam bahasa Korea")},
        own=["aku lagi di jalan", "panas banget hari ini", "sampai jumpa besok", "tunggu sebentar ya", "enak banget"],
        asks=["{name}nya {q} apa?", "{q} {in} apa ya?", "tolong terjemahin {q} {to}", "gimana bilang {q} {in}?", "{q} kalau {in} apa?",
              "artinya {q} {in} apa?"],
        meaning=["{q} artinya apa?", "apa arti {q}?", "{q} itu maksudnya apa?"],
        qa=["belajar {name} susah nggak?", "buatkan puisi {in}", "jawab {in}: {question}", "terjemahan ini benar nggak? {pair}",
            "cara ganti bahasa HP {to}", "{question}", "apa bedanya {name} dan {name2}?"],
        questions=["resep rendang yang enak?", "tempat wisata di Bali yang murah?"],
    ),
    "Thai": Frame(
        names={"English": ("ภาษาอังกฤษ", "เป็นภาษาอังกฤษ", "ภาษาอังกฤษ"), "Japanese": ("ภาษาญี่ปุ่น", "เป็นภาษาญี่ปุ่น", "ภาษาญี่ปุ่น"),
               "Thai": ("ภาษาไทย", "เป็นภาษาไทย", "ภาษาไทย"), "Chinese": ("ภาษาจีน", "เป็นภาษาจีน", "ภาษาจีน")},
        own=["กำลังไปนะ", "วันนี้ร้อนมาก", "เจอกันพรุ่งนี้", "รอแป๊บนึง"],
        asks=["{q} {in}พูดว่าอะไร", "{q} {in}พูดยังไง", "ช่วยแปล {q} {to}หน่อย", "{q} {in}ว่ายังไง", "แปล{to}: {p}"],
        meaning=["{q} แปลว่าอะไร", "{q} หมายความว่าอะไร"],
        qa=["เขียนโค้ด Python กลับข้อความ {e} ยังไง", "ขึ้น error {e} ต้องแก้ยังไง",
            "เรียน{name}ใช้เวลานานไหม", "เขียนกลอน{name}ให้หน่อย", "ตอบเป็น{name}: {question}", "แปลแบบนี้ถูกไหม {pair}",
            "เปลี่ยนภาษาโทรศัพท์{to}ยังไง", "{question}"],
        questions=["ไปเที่ยวเชียงใหม่ที่ไหนดี", "ทำต้มยำกุ้งยังไง"],
    ),
    "Polish": Frame(
        names={"English": ("angielski", "na angielski", "po angielsku"), "German": ("niemiecki", "na niemiecki", "po niemiecku"),
               "Polish": ("polski", "na polski", "po polsku"), "French": ("francuski", "na francuski", "po francusku")},
        own=["trochę się spóźnię", "jest strasznie gorąco", "do jutra", "nie ma za co"],
        asks=["jak jest {q} {in}?", "jak powiedzieć {q} {in}?", "przetłumacz {q} {to}", "{q} {in} to?", "jak się mówi {q} {in}?"],
        meaning=["co znaczy {q}?", "co oznacza {q}?"],
        qa=["czy {name} jest trudny?", "napisz wiersz {in}", "odpowiedz {in}: {question}", "czy to tłumaczenie jest poprawne? {pair}",
            "jak zmienić język telefonu {to}?", "{question}"],
        questions=["jak zrobić pierogi?", "co zwiedzić w Krakowie?"],
    ),
    "Dutch": Frame(
        names={"English": ("Engels", "naar het Engels", "in het Engels"), "German": ("Duits", "naar het Duits", "in het Duits"),
               "French": ("Frans", "naar het Frans", "in het Frans"), "Dutch": ("Nederlands", "naar het Nederlands", "in het Nederlands")},
        own=["ik ben wat later", "het regent pijpenstelen", "tot morgen", "lekker weer"],
        asks=["hoe zeg je {q} {in}?", "wat is {q} {in}?", "vertaal {q} {to}", "{q} {in}?", "wat is het {name}e woord voor {q}?"],
        meaning=["wat betekent {q}?", "wat wil {q} zeggen?"],
        qa=["is {name} moeilijk?", "schrijf een gedicht {in}", "antwoord {in}: {question}", "klopt deze vertaling? {pair}",
            "hoe zet ik mijn telefoon {in}?", "{question}"],
        questions=["hoe maak ik stamppot?", "wat is er te doen in Utrecht?"],
    ),
    "Swahili": Frame(
        names={"English": ("Kiingereza", "kwa Kiingereza", "kwa Kiingereza"), "Swahili": ("Kiswahili", "kwa Kiswahili", "kwa Kiswahili"),
               "French": ("Kifaransa", "kwa Kifaransa", "kwa Kifaransa"), "Arabic": ("Kiarabu", "kwa Kiarabu", "kwa Kiarabu")},
        own=["niko njiani", "leo kuna joto sana", "tuonane kesho", "subiri kidogo"],
        asks=["unasemaje {q} {in}?", "{q} {in} ni nini?", "tafsiri {q} {to}", "nisaidie kusema {q} {in}", "{q} inasemwaje {in}?"],
        meaning=["{q} ina maana gani?", "maana ya {q} ni nini?"],
        qa=["je, {name} ni ngumu kujifunza?", "niandikie shairi {in}", "jibu {in}: {question}", "je, tafsiri hii ni sahihi? {pair}",
            "nawezaje kubadilisha lugha ya simu {to}?", "{question}"],
        questions=["ni wapi pazuri pa kutembelea Zanzibar?", "jinsi ya kupika pilau?"],
    ),
}
# fmt: on
FRAME_LANGUAGE = {"Hinglish": "Hindi"}
# Frames whose own phrases differ in script from an English one: in a Latin-script frame the
# model cannot tell a quoted own phrase from a quoted English one (quotes are masked), and the
# rules judge that case ("same_language").
NON_LATIN = ["Chinese", "Japanese", "Korean", "Hindi", "Arabic", "Persian", "Russian", "Ukrainian", "Thai"]


# Latin-script strings quoted in a request of another script that is no translation: code
# strings, error messages, brands (a quote's script alone must not say "translation").
LATIN_QUOTES = ["hello world", "KeyError: 'id'", "404 Not Found", "IKEA", "abc123", "user_name", "Segmentation fault",
                "Nike", "null pointer", "OpenAI", "iPhone 15", "foo bar baz", "README.md", "Zara", "TypeError"]


def _pick_target(rng: random.Random, frame: Frame, exclude: tuple[str, ...]) -> tuple[str, str, str]:
    keys = [k for k in frame.names if k not in exclude]
    return frame.names[keys[rng.randrange(len(keys))]]


def _quote(rng: random.Random, frame: Frame, text: str) -> str:
    roll = rng.random()
    if roll < 0.45:
        return f"{frame.quote[0]}{text}{frame.quote[1]}"
    if roll < 0.75:
        return f'"{text}"'
    if roll < 0.85:
        return f"'{text}'"
    return text


# "Please" in each frame language, for the bare-target asks ("Ins Englische bitte: …").
PLEASE = {
    "Chinese": ["请", "麻烦", "谢谢"], "Japanese": ["お願い", "お願いします", "で"], "Korean": ["부탁해", "좀", "해줘"],
    "Hindi": ["कृपया", "please", "बताओ"], "Hinglish": ["please", "plz", "bhai"], "Arabic": ["من فضلك", "لو سمحت", "رجاء"],
    "Persian": ["لطفا", "خواهش میکنم"], "Russian": ["пожалуйста", "плиз", "будь добр"], "Ukrainian": ["будь ласка", "прошу"],
    "Spanish": ["por favor", "porfa", "porfis"], "French": ["stp", "svp", "s'il te plaît"], "German": ["bitte", "bitte mal", "danke"],
    "Portuguese": ["por favor", "pfv", "pf"], "Italian": ["per favore", "grazie", "per piacere"], "Turkish": ["lütfen", "rica etsem"],
    "Vietnamese": ["giúp mình", "nhé", "với"], "Indonesian": ["dong", "tolong", "ya"], "Thai": ["หน่อย", "ครับ", "ค่ะ"],
    "Polish": ["proszę", "plz"], "Dutch": ["graag", "alsjeblieft", "aub"], "Swahili": ["tafadhali", "naomba"],
}
# A bare target and the payload, in either order: the frame's grammar for "into X" and its
# "please", no verb ("En anglais stp : …", "…（英文）", "Kwa Kiingereza tafadhali: …").
BARE = ["{to}: {p}", "{to} {please}: {p}", "{please} {to}: {p}", "{p}\n\n{to}?", "{p} → {to}", "{p} ({to}, {please})",
        "{q} — {to}", "{to}?\n{p}", "{in} {please}:\n{p}", "{p}\n{in}"]


def native_translation(rng: random.Random, english: list[str]) -> str:
    """A translation ask written in one of the frame languages."""
    frame_name = rng.choice(list(FRAMES))
    frame = FRAMES[frame_name]
    own_language = FRAME_LANGUAGE.get(frame_name, frame_name)
    if rng.random() < 0.22:
        template = rng.choice(frame.meaning)
        payload = rng.choice(english)  # a phrase foreign to the frame
        return template.format(q=_quote(rng, frame, payload), p=payload)
    template = rng.choice(BARE) if rng.random() < 0.2 else rng.choice(frame.asks)
    if rng.random() < 0.4:  # a phrase of the frame's own language, into another
        payload = rng.choice(frame.own)
        name, to, in_ = _pick_target(rng, frame, (own_language,))
    else:  # an English phrase, into the frame's language or a third
        payload = rng.choice(english)
        name, to, in_ = _pick_target(rng, frame, ("English",))
    please = rng.choice(PLEASE[frame_name])
    return template.format(q=_quote(rng, frame, payload), p=payload, name=name, to=to, please=please, **{"in": in_})


def native_qa(rng: random.Random, english: list[str], foreign: list[str]) -> str:
    """A request in one of the frame languages that mentions languages but is no translation."""
    frame_name = rng.choice(list(FRAMES))
    frame = FRAMES[frame_name]
    template = rng.choice(frame.qa)
    name, to, in_ = _pick_target(rng, frame, ())
    name2 = _pick_target(rng, frame, ())[0]
    own = rng.choice(frame.own)
    pair = f"{_quote(rng, frame, rng.choice(english))} = {_quote(rng, frame, rng.choice(foreign + frame.own))}"
    values = {
        "name": name, "to": to, "in": in_, "name2": name2, "s": _quote(rng, frame, own),
        "pair": pair, "question": rng.choice(frame.questions),
        "e": _quote(rng, frame, rng.choice(LATIN_QUOTES if rng.random() < 0.5 else english)),
    }
    return template.format(**values)


def native_own_meaning(rng: random.Random) -> str:
    """The meaning of a phrase of the frame's own language, asked in that language: no
    translation (a question about a word, answered in the asker's language)."""
    frame = FRAMES[rng.choice(NON_LATIN)]
    return rng.choice(frame.meaning).format(q=_quote(rng, frame, rng.choice(frame.own)), p="")


# Everyday requests that have nothing to do with languages, composed from frames × topics in
# many languages and scripts: most traffic is qa, and a model that has seen qa only as
# questions about languages learns that any unfamiliar text (a Greek question, code) is
# a translation.
# fmt: off
GENERIC: dict[str, tuple[list[str], list[str]]] = {
    "English": (
        ["How do I {t}?", "what's the best way to {t}", "Can you help me {t}?", "any tips to {t}?", "Explain how to {t}.",
         "I need to {t} by tomorrow, where do I start?", "is it hard to {t}", "Give me a step-by-step plan to {t}.",
         "why is it so hard to {t}?", "Write a short guide on how to {t}.", "{t} — ideas?", "how long does it take to {t}"],
        ["fix a leaking tap", "lose weight without a gym", "learn to code in Python", "write a cover letter", "save for a house",
         "train a puppy", "grow tomatoes on a balcony", "negotiate my salary", "sleep better", "clean a cast iron pan",
         "change a flat tyre", "prepare for a job interview", "set up a home network", "bake sourdough bread", "invest in index funds",
         "stop procrastinating", "make cold brew coffee", "speed up my laptop", "remove a wine stain", "plan a wedding on a budget",
         "debug a segfault in C", "centre a div in CSS", "sort a dictionary by value in Python", "write a SQL join", "deploy a Flask app"],
    ),
    "Chinese": (["怎么{t}？", "如何{t}", "{t}有什么技巧？", "请教一下怎样{t}", "我想{t}，应该从哪里开始？", "{t}难吗？"],
                ["减肥", "提高睡眠质量", "学好数学", "做红烧排骨", "省钱买房", "训练小狗", "写简历", "修电脑", "缓解压力", "养多肉植物"]),
    "Japanese": (["{t}にはどうすればいいですか？", "{t}コツを教えて", "{t}方法は？", "{t}のは難しいですか？"],
                 ["早起きする", "貯金する", "部屋を片付ける", "痩せる", "ぐっすり眠る", "パスタをおいしく作る", "プログラミングを学ぶ"]),
    "Korean": (["{t} 방법 알려줘", "어떻게 하면 {t}?", "{t} 팁 있어?"], ["살 빼는", "돈 모으는", "잠 잘 자는", "코딩 배우는", "방 정리하는"]),
    "Greek": (["Πώς μπορώ να {t};", "Ποιος είναι ο καλύτερος τρόπος να {t};", "Συμβουλές για να {t};"],
              ["χάσω βάρος", "κοιμηθώ καλύτερα", "μάθω προγραμματισμό", "φτιάξω μουσακά", "εξοικονομήσω χρήματα"]),
    "Hebrew": (["איך אפשר {t}?", "מה הדרך הכי טובה {t}?", "טיפים {t}?"], ["לישון טוב יותר", "לחסוך כסף", "להכין שקשוקה", "לרדת במשקל"]),
    "Thai": (["ทำยังไงให้{t}", "มีวิธี{t}ไหม", "{t}ต้องทำยังไง"], ["นอนหลับสบาย", "ลดน้ำหนัก", "เก็บเงินได้", "ทำผัดไทย"]),
    "Hindi": (["{t} कैसे करें?", "{t} का सबसे अच्छा तरीका क्या है?", "{t} के लिए टिप्स दो"], ["वज़न कम", "पैसे की बचत", "पढ़ाई में ध्यान", "अच्छी नींद"]),
    "Arabic": (["كيف {t}؟", "ما أفضل طريقة {t}؟", "نصائح {t}"], ["أخسر الوزن", "أنام جيدا", "أوفر المال", "أتعلم البرمجة"]),
    "Russian": (["как {t}?", "как лучше всего {t}?", "посоветуй, как {t}", "сложно ли {t}?"], ["похудеть", "выспаться", "накопить на машину", "научиться программировать", "испечь хлеб"]),
    "Spanish": (["¿cómo puedo {t}?", "¿cuál es la mejor forma de {t}?", "consejos para {t}", "¿es difícil {t}?"], ["bajar de peso", "dormir mejor", "ahorrar dinero", "aprender a programar", "hacer pan casero"]),
    "French": (["comment {t} ?", "quelle est la meilleure façon de {t} ?", "des conseils pour {t} ?"], ["perdre du poids", "mieux dormir", "économiser", "apprendre à coder", "faire du pain"]),
    "German": (["wie kann ich {t}?", "was ist der beste Weg, um {t}?", "Tipps, um {t}?"], ["abnehmen", "besser schlafen", "Geld sparen", "programmieren lernen", "Brot backen"]),
    "Portuguese": (["como {t}?", "qual a melhor forma de {t}?", "dicas para {t}"], ["emagrecer", "dormir melhor", "economizar", "aprender a programar"]),
    "Turkish": (["nasıl {t}?", "{t} için ne yapmalıyım?"], ["kilo verebilirim", "daha iyi uyuyabilirim", "para biriktirebilirim"]),
    "Vietnamese": (["làm sao để {t}?", "cách {t} hiệu quả?"], ["giảm cân", "ngủ ngon", "tiết kiệm tiền", "học lập trình"]),
    "Indonesian": (["gimana cara {t}?", "tips {t} dong"], ["menurunkan berat badan", "tidur nyenyak", "menabung", "belajar coding"]),
    "Polish": (["jak {t}?", "najlepszy sposób, żeby {t}?"], ["schudnąć", "lepiej spać", "oszczędzać pieniądze"]),
    "Swahili": (["nawezaje {t}?", "njia bora ya {t} ni ipi?"], ["kupunguza uzito", "kulala vizuri", "kuweka akiba"]),
}
# fmt: on


def generic_qa(rng: random.Random) -> str:
    frames, topics = GENERIC[rng.choice(list(GENERIC))]
    return rng.choice(frames).format(t=rng.choice(topics))
