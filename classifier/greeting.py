"""A user message that only greets or asks for help, with no task in it yet: no ask.

"Hi! Can you help me?", "hello", "hey, you there?", "good morning!", "hola, ¿me ayudas?",
"I have a question" open many chats, and the model, which has no label for "no task yet",
read them with high confidence as some intent ("Hi! Can you help me?" tool_calling 0.91):
the greeting took that intent's route, and the sticky table then pinned the whole
conversation to it (found in users' probes; two data rounds failed to teach the model
greetings). `greets` tells such a message whole: greetings (English, Spanish, German,
French, Portuguese, Italian, Chinese, Japanese), a name or "there", punctuation and emoji,
and bare requests for help or attention ("can you help me?", "are you there?", "I have a
question", "I need some help", "quick question"), and nothing else: any other word is a
task ("Hi! Can you help me understand recursion?" is read by the model). Pure, bounded.
"""

from __future__ import annotations

import re

from classifier.message import scanned_texts

# Longer is never only a greeting: the bound keeps the match's work small on any text.
GREETING_CHARS = 120

_GREETINGS = (
    # English
    r"hi+|hiya|hello+|helo|hey+|heya|yo|howdy|greetings|sup|wh?at'?s up"
    r"|good (?:morning|afternoon|evening|day)|morning|evening"
    r"|how are (?:you|u)(?: doing)?(?: today)?|how'?s it going|how do you do"
    # Spanish
    r"|hola|buen(?:os|as)? d[ií]as?|buenas(?: tardes| noches)?|qu[eé] tal"
    # German
    r"|hallo|guten (?:morgen|tag|abend)|servus|moin|gr[üu](?:ß|ss) gott|gr[üu](?:ß|ss) dich"
    # French
    r"|bonjour|bonsoir|salut|coucou"
    # Portuguese
    r"|ol[aá]|oi|bom dia|boa (?:tarde|noite)|tudo bem"
    # Italian
    r"|ciao|buongiorno|buonasera|salve"
    # Chinese
    r"|你好|您好|嗨|哈喽|哈囉|早上好|早安|晚上好|大家好"
    # Japanese
    r"|こんにちは|こんばんは|おはよう(?:ございます)?|もしもし|やあ"
)
_HELP = (
    # English: a bare offer or request for help or attention, no topic
    r"(?:(?:can|could|would|will) (?:you|u) )?help(?: me)?(?: out)?(?: with something)?"
    r"|(?:are )?(?:you|u) (?:there|around|available|awake|online)"
    r"|(?:is )?any(?:one|body) (?:there|around|home)"
    r"|i(?: have|'?ve got| got) a (?:quick )?question|quick question|one question"
    r"|i need (?:some |your )?help|i need assistance"
    r"|(?:can|may) i ask (?:you )?(?:a (?:quick )?question|something)"
    # Spanish
    r"|(?:me )?(?:ayudas|puedes ayudar(?:me)?|podr[ií]as ayudar(?:me)?)"
    r"|necesito ayuda|tengo una (?:pregunta|duda)|est[aá]s ah[ií]"
    # German
    r"|(?:kannst du|k[öo]nnen sie) mir helfen|ich (?:habe|hab) eine frage"
    r"|ich brauche hilfe|bist du da"
    # French
    r"|(?:tu peux|peux-tu|pouvez-vous|vous pouvez) m'aider|j'ai une question"
    r"|j'ai besoin d'aide|tu es l[àa]|t'es l[àa]"
    # Portuguese
    r"|(?:voc[eê] )?pode me ajudar|preciso de ajuda|tenho uma (?:pergunta|d[uú]vida)"
    r"|(?:voc[eê] )?est[aá] a[ií]"
    # Italian
    r"|(?:puoi aiutarmi|mi puoi aiutare)|ho una domanda|ho bisogno di aiuto|ci sei"
    # Chinese
    r"|(?:你)?(?:能|可以)帮(?:我|帮我)(?:一下)?吗|帮帮我|我有(?:一)?个问题|在吗"
    # Japanese
    r"|(?:助けて|手伝って)(?:ください|もらえますか|くれますか)|質問があります|ちょっと質問"
)
# Who is greeted: none is a topic
_NAMES = (
    r"there|all|everyone|everybody|folks|guys|team|friend|buddy|mate|bot|assistant|ai"
    r"|chatgpt|gpt|claude|gemini|copilot|llama|mistral|qwen|please|pls|plz|again|amigo|todos"
)
_SEGMENT = rf"(?:{_GREETINGS}|{_HELP}|{_NAMES})"
# Between two segments: white space, punctuation, emoji (all `\W`), or none beside a
# letter outside ASCII (Chinese and Japanese run on: "你好能帮我吗"). Never none between two
# ASCII words: "hi" "hi" read as "hihi" could split many ways, and a long text took 0.3 s.
# Its three kinds never match at one place, so a text is split one way only.
_SEP = r"(?:[\W_]+|(?<=[^\x00-\x7f])|(?<=[\x00-\x7f])(?=[^\x00-\x7f]))"
_WHOLE = re.compile(rf"[\W_]*{_SEGMENT}(?:{_SEP}{_SEGMENT})*[\W_]*", re.IGNORECASE)
_NAMES_ONLY = re.compile(rf"[\W_]*(?:(?:{_NAMES})(?:{_SEP}|$))*", re.IGNORECASE)
_SPACES = re.compile(r"\s+")


def greets(text: str) -> bool:
    """Whether `text` is only a greeting and/or a bare request for help or attention, with no
    task: nothing but `_GREETINGS`, `_HELP` and `_NAMES` (at least one of the first two),
    separated by white space, punctuation or emoji. Curly apostrophes read as straight."""
    if not text or len(text) > GREETING_CHARS:
        return False
    flat = _SPACES.sub(" ", text.replace("\u2019", "'")).strip().lower()
    if not flat or _NAMES_ONLY.fullmatch(flat):
        return False
    return _WHOLE.fullmatch(flat) is not None


# Whether each user message of one request read so far greets (`greets_once`), by identity: the
# messages outlive the reading, so no id is another's while it is kept
Greetings = dict[int, bool]


def greets_once(message: object, known: Greetings, content: object) -> bool:
    """Whether the user message `message` is only a greeting and/or a bare request for help
    or attention (`classifier.greeting.greets`), told by `content`: its content as sent, or
    as its user typed it where a framework wraps every turn in a form of its own
    (`classifier.frameworks.said`: atomic-agents' JSON). An agent's text around it, an image
    or a file beside it, is more than a greeting. Told once a request (`known`, by the
    message): "hello there!" alone was told five times a view, by each reader in both scans
    (found in review)."""
    if (told := known.get(id(message))) is not None:
        return told
    told = known[id(message)] = message_greets(content)
    return told


def message_greets(content: object) -> bool:
    """A content that greets (`greets`): a string, or a part array's texts (`scanned_texts`)
    that are text parts only, together a greeting."""
    if isinstance(content, str):
        return greets(content)
    texts = scanned_texts(content)
    return bool(texts) and all(texts) and greets(" ".join(texts))
