"""Compiled phrasing patterns of translation requests, and of look-alikes that are not.

All patterns run on normalised (NFKC, casefolded) text. They describe phrasings, not items:
verbs that ask for a translation in each language, the indirect "how do you say … in …"
family, "what does … mean", and the contexts in which the word "translation" is merely a
topic ("machine translation", "is this translation correct?").
"""

from __future__ import annotations

import re

from router.classify.guard import guarded, required_literals

# The verb or noun "translate" in the languages requests come in.
TRANSLATE = re.compile(
    r"\btranslat(?:e|es|ed|ing|ion|ions|or|ors)\b"
    r"|翻[译譯訳]|翻(?:成|为|為)|翻一?下(?=(?:这|這|那)(?:句|段|篇|封|些|条|條|首|个词|個詞|几句|幾句)|下面|以下|[：:])|(?<!翻)[译譯訳](?:成|为|為|文|して|す|せ|出)|[汉漢英中日韩韓俄法德]译|和訳|英訳"
    r"|번역|통역"
    r"|\b(?:ü|ue)bersetz\w*"
    r"|\bперев(?:од|ед|ест|ёл|еди)\w*"
    r"|ترجم\w*"
    r"|अनुवाद|ट्रांसलेट|भाषांतर"
    r"|\bvertaa?l\w*|\böversätt\w*|\boversett\w*|\boversæt\w*|\bprzetłumacz\w*|\bpřelož\w*"
    r"|\bперекла(?:д|ст|ди)\w*|\btafsiri\w*"
    r"|\bpreklad\w*|\bterjemah\w*|\bdịch (?:sang|ra|giúp|câu|đoạn|bài|đoạn)|\bçevir\w*"
    r"|תרגם|תרגום|\bμετάφρασ\w*|\bμετάφρα\w*|แปลเป็น|ช่วยแปล|\bkäännä\w*|\bkäännös\w*"
    # South Asian scripts (no \b: their vowel signs are not word characters to `re`)
    r"|অনুবাদ|மொழிபெயர்|అనువాద|అనువదించ|અનુવાદ|ಅನುವಾದ|ಭಾಷಾಂತರ|വിവർത്തന|ਅਨੁਵਾਦ|පරිවර්තන"
    r"|បកប្រែ|ဘာသာပြန်|ແປເປັນ|თარგმნ|თარგმან|թարգման|ተርጉም|ይተርጉ"
    # Latin and Cyrillic languages the clauses above miss (Catalan "tradueix", Romanian
    # "tradu", Hungarian "fordítsd le", Croatian/Serbian/Slovene/Bulgarian "prevedi"/"преведи")
    r"|\btrad(?:u|ú)\w*|\b(?:le)?ford[ií]t\w*|\bisalin\b|\bpagsasalin\b"
    r"|\bpreved\w*|\bprevod\w*|\bprijevod\w*|\bprevesti\b|\bпреведе?\w*|\bпревод\w*"
    r"|\bišvers\w*|\b(?:iz)?tulko\w*|\btõlgi\w*|\btõlki\w*|\btõlge\w*|\bpërkth\w*"
    r"|\btərcümə\w*|\btarjima\w*|\bорчуул\w*|\baistrigh\w*|\bcyfieith\w*|\bfassar\w*"
    r"|\bturju[mn]\w*|\bhumush\w*"
)
# A request word just before the verb makes it an instruction, not a topic.
IMPERATIVE_BEFORE = re.compile(
    r"(?:^|[.!?\n:;,，。！？：；(（\-–—]\s*"
    r"|\b(?:please|pls|plz|kindly|can you|could you|would you|will you|can u|help me|"
    r"i need you to|i want you to|i'd like you to|i would like you to|i need to|i want to|"
    r"your (?:task|job|goal) is to|you (?:have|need|are asked|are required|are supposed|are)"
    r" to|you must|you should|we ask you to|ask you to|let's|and|then|now|also|just|simply|"
    r"go ahead and|to|me|ok|okay|hey|hi|quickly)\s+"
    r"|(?:请|請|帮我|幫我|帮忙|把|将|將|给我|給我|能不能|可以|麻烦|麻煩|再|来|來|试着|尝试|进行|進行)\s*"
    r")$"
)
# The 把/将 construction puts the object before the verb: "请帮我把这句话翻译一下".
ZH_BA_BEFORE = re.compile(r"(?:把|将|將)[^。！？!?\n]{1,60}$")
# English noun/participle forms count only with an explicit request around them.
NOUN_FORM = re.compile(r"translat(?:ion|ions|or|ors|ed)\b")
NOUN_REQUEST = re.compile(
    r"\b(?:give|provide|show|need|want|write|produce|output|make|do|get|generate|return|send|"
    r"offer|create|prepare|request|like|have|add|include)\b[^.?!\n]{0,40}$"
    r"|\b(?:what(?:'s| is| are| would be)|act as|be)\b[^.?!\n]{0,30}$"
)
NOUN_AFTER = re.compile(r"^\s*(?:of|into|to|in|for|from|please|:|：)")
# Verb hits used as nouns in Chinese ("翻译是一门艺术") are topics.
ZH_NOUN_AFTER = re.compile(r"^(?:是|的|在|和|与|與|有|者|家|员|員|学|學|腔|官|界|史)")
# "translate this into JSON": the object is not a human language.
INTO_WORD = re.compile(
    r"^\w*\s+(?:[^\s.?!:\n]+\s+){0,10}?(?:into|to)\s+(?:(?:\d+|two|three|four|five|six|"
    r"several|multiple|many|various|different|other|all)\s+)?([a-z]\w*)"
)
# Contexts in which "translation" is a topic, not a request.
TOPIC = re.compile(
    r"machine[- ]?translat|neural[- ]translat|google translate|\bdeepl\b|auto[- ]?translat"
    r"|translation (?:memory|studies|software|tools?|apps?|services?|agency|agencies|industry|"
    r"compan(?:y|ies)|quality|metrics?|errors?|theory|process|jobs?|careers?|degree|major|"
    r"programs?|models?|systems?|api|engine|benchmarks?|evaluation|task|dataset)"
    r"|\b(?:hard|difficult|impossible|easy|possible|tricky|challenging|harder) to translate"
    r"|untranslatable|lost in translation|(?:become|becoming|job as|work as|career as|hire|"
    r"hiring|salary of|jobs? for) (?:a |an )?(?:\w+ )?translators?"
    r"|\b(?:the )?word ['\"“‘]?translat|etymology|origin of the word"
    r"|\b(?:what|which|how many) languages? (?:can|do|does|will|could) (?:you|it|they) "
    r"(?:translate|speak|support|understand)"
    r"|\b(?:check|correct|evaluate|review|proofread|verify|grade|rate|score|compare|assess|judge|"
    r"critique|improve|fix|polish|edit|analy[sz]e|double-check|look over)\w*\b[^.?!\n]{0,40}"
    r"\btranslat"
    r"|translat\w*[^.?!\n]{0,40}\b(?:correct|accurate|right|wrong|good enough|acceptable|"
    r"faithful|mistakes?|errors?|quality|make sense)\b[^.!\n]{0,20}\?"
    r"|\b(?:whether|if)\b[^.?!\n]{0,60}\b(?:a |an |the |its |their )?(?:\w+ )?translations?\b"
    r"|\binto (?:plain|simple|simpler|layman'?s?|everyday|normal) (?:english|language|terms|words)"
    r"|\b(?:better|more (?:accurate|natural|faithful|literal|idiomatic)) translations?\b"
    r"|\bwhich (?:of (?:these|the|those|my) (?:\w+ ){0,2})?(?:\w+ )?translations?\b"
    r"|\b(?:is|are|was|does) (?:this|that|my|the|these|it)\b[^.?!\n]{0,30}translat\w*"
    r"[^.!\n]{0,30}\?"
    r"|机器翻[译譯]|机翻|翻[译譯](?:是否|对不对|对吗|正确吗|准确吗|有没有|质量|的质量|软件|工具|"
    r"公司|行业|专业|技巧|理论|指标|系统|模型|腔|研究|学|史|标准|方法|准确性|错误)"
    r"|(?:检查|评估|评价|判断|校对|润色|修改|改进|分析|纠正|比较|检验).{0,12}翻[译譯]"
    r"|(?:需要|应该|要)注意(?:什么|哪些)|有(?:什么|哪些)(?:技巧|方法|要求|区别)"
    r"|(?:成为|学习|做好|提高|学好).{0,6}翻[译譯]|同声传译|翻[译譯](?:得|的)(?:对|好|准)"
    r"|機械翻訳|翻訳(?:は正しい|が正しい|の品質|をチェック|ソフト|ツール|者になる|者の)"
    r"|traducción automática|traduction automatique|maschinelle übersetzung|машинн\w+ перевод"
    r"|traduzione automatica|tradução automática|기계 ?번역|번역(?:이 맞|가 맞|이 정확|기)"
    # "is this translation right?" in the languages requests come in
    r"|(?:übersetzung|traducci[oó]n|traduction|traduzione|tradução|перевод\w*|переклад\w*|tafsiri"
    r"|ترجمه|ترجمة|çeviri"
    r"|vertaling|översättning|tłumaczenie|překlad|dịch|μετάφραση)\b[^.?!\n]{0,30}"
    r"\b(?:richtig|korrekt|falsch|correct\w*|exact\w*|juste|fausse|giust\w*|sbagliat\w*|certa"
    r"|правильн\w*|верн\w*|точн\w*|doğru|yanlış|juist|goed|rätt|poprawn\w*|správn\w*|đúng|sahihi"
    r"|σωστ\w*)"
    r"|(?:правильн\w*|верн\w*|точн\w*|richtig|correct\w*|juste)\b[^.?!\n]{0,20}"
    r"(?:перевод|переклад|übersetz|traduc|traduz)"
    r"|(?:این|آن) ترجمه (?:درست|صحیح|دقیق)|ترجمة (?:صحيحة|دقيقة)|هل (?:هذه )?الترجمة"
    # the judgement before the noun: "¿está bien esta traducción?", "stimmt die Übersetzung?"
    r"|(?:está bien|es correcta|es buena|est-elle|est correcte|stimmt|ist|è giusta|está certa)"
    r" (?:esta|esa|la|mi|cette|ma|la|die|diese|meine|questa|essa|a) (?:\w+ )?"
    r"(?:traducci|traduction|übersetzung|traduzione|tradução)"
    r"|(?:英訳|和訳|翻訳|訳)(?:は|が)(?:自然|正しい|合って|おかしい|変)"
    # …and in the languages of the second TRANSLATE block (noun, then the judgement)
    r"|(?:অনুবাদ|மொழிபெயர்ப்பு|అనువాదం|અનુવાદ|ಅನುವಾದ|ਅਨੁਵਾਦ|अनुवाद|भाषांतर|ترجمہ|fordítás"
    r"|oversættelse|oversettelse|превод|prijevod|prevod|terjemahan|salin|pagsasalin|traducció"
    r"|traducere|תרגום|ትርጉም|თარგმან|แปล)[^.?!\n]{0,30}"
    r"(?:সঠিক|ভুল|சரி|தவறு|సరైన|సరి|తప్పు|સાચ|ખોટ|ಸರಿ|ತಪ್ಪು|ਸਹੀ|ਗਲਤ|सही|गलत|बरोबर|चूक"
    r"|درست|صحیح|غلط|helyes|hibás|\bjó\b|rossz|korrekt|rigtig|riktig|forkert|feil|правил\w*"
    r"|вярн\w*|грешн\w*|точ(?:ан|на|но|ен)|tačan|točan|ispravan|ispravn\w*|pogrešn\w*|betul|benar"
    r"|tepat|salah|\btama\b|\bmali\b|נכון|נכונה|מדויק|שגוי|correct\w*|corect\w*|ትክክል|სწორ"
    r"|ถูก)"
    r"|(?:helyes|oikein|oikea|korrekt|rigtig|riktig|правилен|правилно|tačan|točan|ispravan)"
    r"\b[^.?!\n]{0,20}(?:fordítás|käännös|oversættelse|oversettelse|превод|prevod|prijevod)"
)
# A pair of language codes as the whole instruction ("fr→en: …", "[de-en] …", "EN>JA: …"): the
# codes of the languages people write them for (two-letter codes outside a pair are words).
LANGUAGE_CODE_NAMES = {
    "en": "English", "fr": "French", "de": "German", "es": "Spanish", "it": "Italian",
    "pt": "Portuguese", "ja": "Japanese", "jp": "Japanese", "zh": "Chinese", "cn": "Chinese",
    "ko": "Korean", "kr": "Korean", "ru": "Russian", "ar": "Arabic", "nl": "Dutch", "pl": "Polish",
    "tr": "Turkish", "sv": "Swedish", "hi": "Hindi", "vi": "Vietnamese", "id": "Indonesian",
    "uk": "Ukrainian", "ua": "Ukrainian", "el": "Greek", "he": "Hebrew", "th": "Thai",
    "fa": "Persian", "cs": "Czech", "da": "Danish", "fi": "Finnish", "ro": "Romanian",
    "hu": "Hungarian", "bg": "Bulgarian", "ms": "Malay", "tl": "Filipino", "sw": "Swahili",
}  # fmt: skip
CODE_PAIR = re.compile(
    r"[\[(]?\s*([a-z]{2})\s*(?:→|->|=>|>|—|–|-|/|2|to)\s*([a-z]{2})\s*[\])]?"
)
# A payload to translate usually follows the instruction after a colon, a line or a quote.
PAYLOAD_MARK = re.compile(r"[:：\n\"“「『«'‘]")
_MARKS = (
    "\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed"
    "\u0900-\u0dff\u0e31\u0e34-\u0e3a\u0e47-\u0e4e\u0eb1-\u0ebc\u0ec8-\u0ecd\u1000-\u109f"
    "\u1780-\u17ff\u200c\u200d"
)
# A word: letters with the combining marks Indic, Arabic, Hebrew and Thai words carry.
WORD = re.compile(rf"[\w{_MARKS}]+(?:-[\w{_MARKS}]+)*")
# A quote: apostrophes inside words ("what's", "l'eau") neither open nor close one.
QUOTED = re.compile(r"(?:[\"“「『«‘]|(?<![a-zà-ɏ])')(.+?)(?:[\"”」』»]|[’'](?![a-zà-ɏ]))")

# A short turn after a translation that asks for the same again, differently ("more casual?",
# "a shorter version", "another way to say it", "更正式一点") or for a new phrase the same way
# ("and 'good night'?", "what about 'thank you'"): the conversation's task goes on.
CONTINUE = re.compile(
    r"\b(?:more|less|bit more|a bit more|a little more|even more|too|not so)\s+"
    r"(?:formal|informal|casual|polite|natural|literal|colloquial|friendly|professional"
    r"|idiomatic|slangy|respectful|simple|romantic|native)\b"
    r"|\b(?:shorter|simpler|politer|longer|literally|formally|informally|casually)\b"
    r"|\b(?:formal|informal|casual|polite|slang|plural|feminine|masculine|past tense|"
    r"friendlier|other|different|alternative|another|literal)\s+(?:version|way|form|one|"
    r"options?|ways|translation|wording|phrasing)s?\b"
    r"|\b(?:another|other|different) (?:way|ways|options?|version|one)\b"
    r"|\b(?:again|differently)\b"
    r"|更(?:正式|口语|礼貌|自然|简短)|正式一[点點]|口语一[点點]|换个说法|別の言い方|もっと(?:丁寧|カジュアル)"
    r"|más (?:formal|informal|corto|natural)|plus (?:formel|poli|familier|court)"
    r"|förmlicher|lockerer|höflicher"
)
# …but a question about the text just translated is no translation ("why 'gozaimasu'?",
# "how do I pronounce it?", "is it rude?").
ABOUT_TEXT = re.compile(
    r"\b(?:why|pronounc\w*|mean\w*|romani[sz]\w*|transliterat\w*|rude|offensive|correct|right"
    r"|explain\w*|grammar|spell\w*|origin|difference|literally mean|enough|appropriate"
    r"|sound|stress|accent|tone|what does|what is|what's|is it|is that|is this|are they"
    r"|hiragana|katakana|kanji|pinyin|romaji|script|letters|alphabet|cyrillic|latin)\b"
    r"|^(?:is|are|does|do|did|should|would|was)\b(?! there)"
    r"|为什么|為什麼|怎么读|怎麼讀|什么意思|なぜ|どう読|読み方|por qué|pourquoi|warum"
)
CONTINUE_LEAD = re.compile(
    r"^(?:and|what about|how about|now|also|then|same for|ok(?:ay)? now|and now|next)?[\s,:]*$"
)

# Indirect asks: "how do you say X in Japanese", "what's the Spanish word for X", …
SAY = re.compile(
    r"^(?:please |now |ok |okay |hey )?say\b|\bequivalent (?:of|for|to)\b"
    r"|\bhow (?:is|are|was|were) .{1,40} (?:said|written|called)\b"
    r"|\b(?:give|tell|show) me the (?:\w+ )?(?:word|term|phrase) (?:for )?"
    r"|\bhow (?:do|would|can|could|should|does|did|might|will|to) (?:i |you |we |they |one |"
    r"people |someone |a person |u |ya |(?:a |an |the )?\w+ (?:people |speakers? |natives? )?)?"
    r"(?:(?:in|from) \w+ )?(?:say|express|greet|call|ask|tell|wish|thank|address)\b"
    r"|\b(?:want|need|like|wanna|trying|try|have|able|teach me|learn|know) (?:how )?to "
    r"(?:say|tell|ask|greet|thank|wish)\b"
    r"|\bhow (?:would|does|do|will|might|should) (?:this|that|it|these|the \w+)(?: \w+)? "
    r"(?:read|sound|look|be written|go)\b"
    r"|\b(?:proper|correct|right|best|polite|formal|informal|common|usual) way(?:s)? (?:to|of) "
    r"(?:say|saying|greet|greeting|express|ask|thank|wish)"
    r"|\bwhat (?:do|does|would|did|should) (?:\w+ ){0,3}(?:say|call|use)\b"
    r"|\bwhat(?:'s| is| are) (?:the |a )?(?:\w+ )?(?:word|words|term|phrase|expression|way to "
    r"say)s? (?:for|of)\b|\bwords? for\b"
    r"|怎么说|怎麼說|如何说|如何說|怎样说|怎樣說|咋说|怎么讲|怎麼講|怎么表达|怎麼表達"
    r"|で(?:何|なん)(?:と|て)(?:言|い)|ではなんと|뭐라고|어떻게 (?:말|써|쓰|표현|해)"
    r"|comment (?:dit-on|on dit|dire|se dit|dis-je|je dis)|c[oó]mo se (?:dice|escribe|llama)"
    r"|c[oó]mo (?:digo|decir)|wie sagt man|wie sage ich|wie heisst|was heisst|come si dice"
    r"|come (?:dire|dico)|como se diz|como (?:digo|dizer)|как (?:будет|сказать|по-|скажешь|скажу)"
    r"|كيف (?:أقول|اقول|تقول|نقول|يقال)|कैसे (?:कहते|बोलते|कहें|कहूं|कहेंगे)|क्या कहते"
    r"|\bhoe (?:zeg|zegt|noem) (?:je|jij|ik|men|u)\b|\bwat is .{1,40} in het \w+"
    r"|\bhur (?:säger|sager|skriver) (?:man|jag|du|ni)\b|\bvad heter .{1,40} på \w+"
    r"|\bhvordan (?:siger|sier|skriver) (?:man|jeg|du)\b|\bhva heter|\bhvad hedder"
    r"|\bjak (?:powiedzieć|powiedziec|się mówi|sie mowi|mówi się|będzie|napisać)\b"
    r"|\bapa bahasa \w+|\bbagaimana (?:cara )?(?:mengatakan|bilang|mengucapkan)\b"
    r"|\bnasıl (?:denir|söylenir|derim|deriz|dersin|diyebilirim|yazılır)\b"
    r"|چه می\u200c?شود|چی می\u200c?شه|(?:چطور|چگونه) (?:می\u200c?)?(?:گویند|گوییم|بگویم|گفت)"
    r"|[でをは]どう(?:言|い)(?:います|う|えば|いま)|どう言えば|(?:なん|何)て言(?:う|い)|何と言(?:う|い)"
    r"|\bcomo (?:é|e|fica) .{1,40} em \w+"
    # "how do you say" in the languages of TRANSLATE's second block
    r"|\bhogy(?:an)? (?:mondj\w*|mondo\w*|mondan\w*|kell mondani|van)\b|\b(?:miten|kuinka) sano\w*"
    r"|\bjak se (?:řekne|rekne|říká|rika)\b|\bako sa (?:povie|hovorí|povedať)\b"
    r"|\bkako se (?:kaže|kaze|kažu|reče|rece)\b|\bkako (?:da kažem|reći|rečem)\b"
    r"|\bкако се (?:каже|рече)\b|\bкак се казва\b|\bкак (?:да кажа|ще бъде)\b"
    r"|\bяк (?:сказати|буде|кажуть|скажу)\b|\bcum se (?:spune|zice)\b|\bcum (?:spun|zic)\b"
    # Greek final sigma casefolds to σ
    r"|\bπώσ (?:λέγεται|λέμε|λεσ|να πω|το λένε|λέγονται)|איך (?:אומרים|אומר|לומר|להגיד|אגיד)"
    r"|\bcom es diu\b|\bcom (?:dic|dir)\b|\bkaip (?:pasakyti|sakoma|bus)\b|\bkā (?:pateikt|saka)\b"
    r"|\bkuidas (?:öelda|öeldakse)\b|\bpaano (?:sabihin|sasabihin|mo sasabihin)\b"
    r"|\b(?:unasemaje|tunasemaje|wanasemaje)\b|\bjinsi ya kusema\b|\bnói (?:như )?thế nào|\bnói sao"
    r"|কীভাবে বল|কিভাবে বল|কী বলে|எப்படி சொல்|எப்படிச் சொல்|ఎలా (?:చెప్పాలి|చెబుతారు|అంటారు)"
    r"|ఏమంటారు|कसे (?:म्हणतात|म्हणायचे)|काय म्हणतात|کیسے (?:کہتے|کہیں|بولتے)|کیا کہتے"
    r"|કેવી રીતે (?:કહેવાય|કહે)|શું કહેવાય|ਕਿਵੇਂ (?:ਕਹਿੰਦੇ|ਕਹੀਏ)|როგორ (?:ითქმის|ვთქვა)"
    r"|እንዴት (?:ይባላል|እላለሁ)"
)
WHAT_IS_IN = re.compile(
    r"\bwhat(?:'s| is| are| was)? (?!the |a |an |your |my |some )(?:\S+ ){1,4}?(?:in|en) "
    r"(?P<lang>\w+)(?: language)?\s*[?.!]*$"
)
WHAT_IS_LANG_FOR = re.compile(
    r"\b(?:what(?:'s| is| are| would be)?|give me|tell me|need|want|know|with|find|get) (?:the )?"
    r"(?P<lang>\w+) (?:word |term |phrase )?for\b(?!-)"
    r"|^(?:and |so |ok |okay )?(?P<bare>\w+) for (?!(?:beginners|kids|children|dummies|adults|"
    r"students|travell?ers|business|work|school|everyone|me|us)\b)(?:\S+ ){0,3}\S+$"
)
LANG_TO_LANG = re.compile(r"^(?:\w+ )?(?P<src>\w+) (?:to|into|->|→) (?P<lang>\w+)\b")
IF_I_WERE = re.compile(
    r"\bif (?:i|you|we) (?:was|were|am|are|lived in|was in|were in) "
    r"(?:a |an |in |from )?(?P<who>\w+)"
)
IN_PLACE = re.compile(r"\bin (?P<where>\w+)\s*[?.!]*$")
# "how would a german say …", "what do italians say …", "how do people in japan say …"
WHO_SAYS = re.compile(
    r"\b(?:how|what) (?:do|does|would|did|might|can|could) (?:a |an |the )?(?P<who>\w+)"
    r"(?: people| speakers?| natives?)? (?:say|call|use|greet)\b"
)
PEOPLE_IN = re.compile(r"\b(?:people|someone|they|folks|locals) (?:in|from) (?P<where>\w+)")
# A people's ways, not their words: "how do norwegians stay warm", "if i were japanese, what
# would i eat" (any verb but the saying ones, and no quoted phrase).
PEOPLE_DO = re.compile(
    r"^(?:\w+ ){0,3}?(?:how|why|when|where|what) (?:do|does|did) (?:the )?(?P<who>\w+) "
    r"(?!say|call|write|spell|pronounce|name|refer|use|greet|express|put|ask|tell|mean)\w+"
    r"|^if (?:i|you|we) (?:was|were) (?:a |an |from |in )?(?P<who2>\w+),? "
    r"(?:what|where|which|how|when|would)\b(?![^?.!]{0,40}\b(?:say|call|word|phrase)\b)"
)
# "What does X mean" and its kin; translation when X is in another language than the ask.
MEANING = re.compile(
    r"\bwhat (?:does|do|did) (?P<x>.+?) (?:mean|means|stand for)\b"
    r"|\b(?:meaning|definition) of (?P<y>.+)"
    r"|是什么意思|是甚麼意思|什么意思|什麼意思|啥意思|的意思是|是何意|何の意味|どういう意味|って何"
    r"|무슨 뜻|무슨 의미|의 뜻|veut dire|que signifie|qu[eé] significa"
    r"|qu[eé] quiere decir|was bedeutet|was heisst|cosa significa|che significa|cosa vuol dire"
    r"|o que (?:significa|quer dizer)|что (?:значит|означает)|ما معنى|ماذا تعني|का मतलब|का अर्थ"
    r"|(?:معنی|معنای)(?P<z>.+?)(?:چیست|چه است|چیه)|یعنی چه|\bne demek\b|\bwat betekent\b"
    r"|\bco znaczy\b|\bvad betyder\b|\bapa arti(?:nya)?\b|\bnghĩa là gì\b"
)
# "What is she saying?" about a quoted text: asks for its meaning, only with a quote.
SAYS = re.compile(
    r"\bwhat (?:is|are|was|were) (?:she|he|they|it|this|that|the \w+) (?:saying|trying to say)\b"
    r"|\bwhat (?:this|that|it|the)(?: \w+)? (?:says|said)\b"
    r"|\bwhat (?:does|do|did) (?:this|that|it|the)(?: \w+)? say\b"
    r"|\bwhat (?:is|are|was|were) (?:she|he|they|it|this|that|the \w+) "
    r"(?:telling|asking) (?:me|us)\b"
    r"|(?:^|[\s,;:—-])meaning\s*\?+\s*$"  # "someone commented '…' on my photo, meaning?"
)
# "Is 'Ich bin kalt' the right way to say …": checking, not asking for a translation.
CHECKING = re.compile(
    r"^(?:is|are|was|does|do|did)\b[^?]{0,80}\b(?:correct|right|proper|wrong|accurate|natural|"
    r"grammatical|okay|ok)\b"
)
SCRIPT_AFTER = re.compile(
    r"^\s*(?:script|alphabet|characters?|letters?|numerals?|digits?|transliteration|keyboard"
    r"|字母|文字|拼音|字符)"
)
VERSION_OF = re.compile(r"^\s+(?:version|translation|rendering) of\b")
# Frames that ask for something else *in* a language: not a translation.
OTHER_TASK = re.compile(
    r"\b(?:answer|reply|respond|write|explain|summar|describe|talk|speak|chat|use|change|set|"
    r"switch|make|tell|give|list|generate|compose|draft|create|sing)"
    r"|回答|回复|回覆|用|写|寫|说明|解释|解釋|总结|總結|改写|改寫"
)
# fmt: off
FRAME_FILLER = frozenset((
    "please", "pls", "plz", "in", "into", "to", "the", "language", "version", "translation",
    "translated", "now", "thanks", "thank", "you", "kindly", "for", "me", "it", "this", "that",
    # the same words in the frames requests come in ("Bitte ins Englische: …", "En anglais : …")
    "bitte", "ins", "auf", "por", "favor", "porfa", "en", "al", "em", "para", "o", "stp",
    "per", "favore", "пожалуйста", "на", "lütfen", "proszę", "na", "po", "graag", "naar", "het",
    "tafadhali", "kwa", "tolong", "ke", "dalam", "bahasa", "sang",
))
# fmt: on
# Where a language name sits relative to its preposition or particle.
TARGET_BEFORE = re.compile(
    r"(?:\b(?:into|to|ins|auf|nach|на|para|pra|vers|verso|till|naar|sang|ke|al|a|en|em|do|"
    r"na|into the|to the|dans|hacia|naar het|på|til|στα|στην|στη|σε|în|sa|į|ወደ)\s+"
    r"|(?:all'|nell'|à l'|vers l'|l')"
    r"|(?:\b(?:into|to|in|en|al)\s+(?:the\s+)?(?:polite|formal|informal|simple|proper|correct|good|"
    r"natural|fluent|modern|standard|simplified|traditional|colloquial|casual|brazilian|"
    r"european|mexican|american|british|business|written|spoken)\s+)"
    r"|[成为為到至]\s*|"
    r"(?:إلى|الى|به|به زبان)\s+|по-)$"
)
WEAK_TARGET_BEFORE = re.compile(r"\b(?:in|in the|auf|im|用)\s*$")
TARGET_AFTER = re.compile(
    r"^(?:\s*(?:に|へ|로|으로|में|ga|dili|ye|'ye|diline|میں|\u200c?లో|ਵਿੱਚ|ভাষায়|ভাষাতে|மொழியில்"
    r"|\s+kalbą|\s+valodā|\s+keelde)|\s*(?:的)?"
    r"(?:翻[译譯訳]|译文|譯文|版本|版)|\s+(?:translation|version))"
)
SOURCE_BEFORE = re.compile(
    r"(?:\b(?:from|de|del|du|desde|aus|von|с|из|da|dal|dall'|dalla|fra|van|från)\s+(?:the\s+)?"
    r"|(?:من|از)\s*|[从從由]\s*)$"
)
SOURCE_AFTER = re.compile(
    r"^\s*(?:to|into|->|→|-)\s+\w|^\s*(?:から|에서)"
    r"|^\s+(?:language\s+)?(?:sentences?|texts?|passages?|phrases?|paragraphs?|articles?|"
    r"words?|documents?|tweets?|reviews?|version)\b"
    r"|^(?:的)?(?:句子|文本|文章|段落|原文|单词|單詞|邮件|郵件|新闻|新聞|对话|對話|诗|詩|歌词)"
)
# "a sentence in Romanian": the language the payload is in.
SOURCE_IN = re.compile(
    r"\b(?:sentences?|texts?|passages?|phrases?|paragraphs?|questions?|tweets?|reviews?|"
    r"documents?|words?|articles?|posts?|inquiries|queries|file) (?:written )?in (?:the )?$"
)
# Chinese asks that never say 翻译: "转换成英文", "用英文表达", "…的英文是什么".
ZH_CONVERT_BEFORE = re.compile(
    r"(?:转换|轉換|转化|轉化|转|轉|变|變|换|換|说|說|改|翻)(?:成|为|為)\s*$"
)
ZH_EXPRESS_AFTER = re.compile(
    r"^(?:来|來)?(?:表达|表達|表述|说出来|說出來)"
    r"|^(?:怎么|怎麼|如何|该怎么|該怎麼)(?:说|說|讲|講|表达|表達|表述)"
    r"|^(?:说|說|讲|講|写|寫)(?:一下|一遍)?(?=\s*[：:“\"「])"  # "用英语说一下：…", with its text
)
# "say 'welcome' in five languages": every language wanted, none named.
MANY_LANGUAGES = re.compile(
    r"\b(?:in|into) (?:\d+|two|three|four|five|six|seven|eight|nine|ten|several|multiple|many|"
    r"various|different|other|all)(?: different| other)? languages\b"
)
ZH_WHAT_IS_AFTER = re.compile(
    r"^(?:单词|單詞|单字|名字|名称|名稱|叫法|说法|說法)?"
    r"(?:是什么|是甚麼|是啥|叫什么|叫什麼|怎么写|怎麼寫|怎么拼|怎麼拼|怎么读|怎麼讀)"
    r"|^(?:单词|單詞|名字|名称|名稱|叫法|说法|說法|表达|表達|写法|寫法|译名|譯名)(?:[。？?！!.]|$)"
)
# "…用日语怎么写": how it is written in a language (not "英文论文怎么写", how to write one).
ZH_WRITE_AFTER = re.compile(
    r"^(?:里|裡|中)?(?:要|该|應該|应该)?(?:怎么写|怎麼寫|怎么拼|怎麼拼|如何写|如何寫)"
)
# "…在英文里叫什么": what it is called in a language.
ZH_CALLED_AFTER = re.compile(r"^(?:里|裡|中)(?:叫什么|叫什麼|叫啥|怎么叫|怎麼叫|怎么称呼|怎麼稱呼)")
# "thunderstorm 中文叫什么": a word, then the language and "called what" (no 在…里).
ZH_CALLED_BARE_AFTER = re.compile(r"^(?:叫什么|叫什麼|叫啥|怎么叫|怎麼叫)")
# "…を日本語にして": make it into a language (Japanese).
JA_MAKE_AFTER = re.compile(r"^(?:に|へ)(?:して|し て|直して|なおして|変えて|かえて|変換|訳)")
# "英語だとどうなる？", "英語では何と言う": how it goes in a language.
JA_HOW_IN_AFTER = re.compile(
    r"^(?:だと|では|で)(?:どうなる|どう言う|どういう|何と言う|なんと言う|何て言う|なんて言う|どう書く)"
)
# "영어로 바꿔 줘": change it into a language (Korean; the particle is part of the name).
KO_CHANGE_AFTER = re.compile(r"^\s*(?:바꿔|바꾸어|바꿔줘|옮겨|고쳐|번역)")
# …unless it is a setting that changes language ("휴대폰 언어를 영어로 바꿔 줘").
KO_SETTINGS_BEFORE = re.compile(r"언어|설정|폰|화면|키보드|자막|메뉴|시스템|앱")
# Settings words before "切换成英文": the interface or the answers, not a text.
ZH_SETTINGS_BEFORE = re.compile(
    r"语言|語言|设置|設置|界面|系统|系統|手机|手機|输入法|輸入法|回答|回复|回覆|答复"
)
# Asks for a text in another language without saying translate: "produce the same sentence in
# Thai", "give its equivalent in Japanese", "write it in English", "I need this in Portuguese".
EQUIVALENT_BEFORE = re.compile(
    r"\b(?:produce|give|output|write|generate|provide|return|express|render|restate|say|put|"
    r"rewrite|present|show|need|want|get|have|create|make|tell)\b(?:\s+me)?\s+"
    r"(?:it|this|that|them|these|those|the same(?: \w+)?|its equivalent|an? equivalent(?: \w+)?|"
    r"the equivalent(?: \w+)?|the corresponding(?: \w+)?|a corresponding(?: \w+)?|"
    r"(?:this|that|these|those|the (?:given|following|above|input|original|same)) (?:\w+ )?"
    r"(?:sentences?|texts?|paragraphs?|passages?|phrases?|words?|questions?|tweets?|reviews?|"
    r"headlines?|lines?|messages?|emails?|titles?|sign|labels?|menu))"
    r"\s+(?:in|into)\s+(?:the\s+)?$"
)
# "give its Bahasa Indonesia version": a verb, then a language naming the wanted version.
VERSION_BEFORE = re.compile(
    r"\b(?:produce|give|output|write|generate|provide|return|create|need|want|get)\w*\s+"
    r"(?:me\s+)?(?:its|the|an?|their)\s+$"
)
VERSION_AFTER = re.compile(r"^\s+(?:version|equivalent|counterpart|rendering|translation)\b")

# The long alternations searched across whole windows, behind a first-letter lookahead (see
# router/classify/guard.py: the same matches, a fraction of the time).
TRANSLATE = guarded(TRANSLATE)
# One of these is in any text TOPIC matches: most requests need no TOPIC search at all.
TOPIC_LITERALS = required_literals(TOPIC)
TOPIC = guarded(TOPIC)
SAY = guarded(SAY)
MEANING = guarded(MEANING)
TARGET_BEFORE = guarded(TARGET_BEFORE)
WEAK_TARGET_BEFORE = guarded(WEAK_TARGET_BEFORE)
SOURCE_BEFORE = guarded(SOURCE_BEFORE)
SOURCE_IN = guarded(SOURCE_IN)
EQUIVALENT_BEFORE = guarded(EQUIVALENT_BEFORE)
VERSION_BEFORE = guarded(VERSION_BEFORE)
NOUN_REQUEST = guarded(NOUN_REQUEST)
OTHER_TASK = guarded(OTHER_TASK)
WHO_SAYS = guarded(WHO_SAYS)
WHAT_IS_IN = guarded(WHAT_IS_IN)
PEOPLE_IN = guarded(PEOPLE_IN)
