"""Hand-built meaning cues: words that name a kind of work, in several languages.

Word statistics learned from public datasets carry each dataset's style; these cues carry
the *kind of work* across styles and languages ("poema", "Gedicht", "诗" all name a poem).
Each cue becomes one feature `m:<concept>`, so a few hundred training rows teach the model
what the concept means for every language listed here.
"""

from __future__ import annotations

# concept -> latin-script words, matched as whole lower-cased tokens
_WORDS_TEXT: dict[str, str] = {
    "poem": (
        "poem poems poetry poet haiku sonnet limerick verse verses stanza stanzas rhyme "
        "rhyming ode ballad acrostic villanelle poema poemas poesía poesia verso gedicht "
        "gedichte reim poème poésie lyrics song songs lied canción cancion chanson rap"
    ),
    "literary_form": (
        "acrostic acrostics lipogram lipograms tautogram univocalic abecedarian haiku "
        "haikus tanka cinquain limerick limericks sonnet sonnets villanelle triolet rondeau "
        "sestina ghazal pantoum clerihew pangram palindrome palindromic acróstico acrostico "
        "lipograma soneto akrostichon lipogramm sonett elfchen acrostiche lipogramme"
    ),
    "story": (
        "story stories tale fable myth fiction novel chapter plot character characters "
        "protagonist villain narrator scene screenplay script dialogue monologue roleplay "
        "role-play pretend imagine cuento historia relato novela personaje geschichte "
        "erzählung märchen figur conte histoire roman personnage fantasy dragon"
    ),
    "doc": (
        "email e-mail letter essay article blog post report summary summarize summarise "
        "memo speech proposal review cover resume announcement newsletter press copy "
        "description bio outline correo carta ensayo artículo articulo informe resumen "
        "discurso brief aufsatz artikel bericht zusammenfassung rede lettre rapport "
        "résumé discours courriel linkedin tweet slogan pitch"
    ),
    "code": (
        "code function python javascript typescript java rust golang sql regex bash shell "
        "script compile compiler bug debug traceback exception stack api class method "
        "refactor unittest pytest dockerfile docker kubernetes yaml json git npm pip "
        "código codigo función funcion programa funktion programm fonction programme "
        "array list dict string variable loop algorithm implement segfault null undefined "
        "query database"
    ),
    "math": (
        "solve calculate compute equation integral derivative prove probability sum "
        "product remainder prime fraction percent percentage area volume perimeter radius "
        "triangle circle angle polynomial matrix simplify evaluate factor root roots "
        "digits resuelve resolver calcula calcular ecuación ecuacion löse berechne "
        "berechnen gleichung résoudre résous calculer équation many much total average "
        "mean median cost costs price"
    ),
    "reason": (
        "why would could if true false logic logical puzzle riddle deduce infer conclude "
        "reason because explain plausible whether por qué warum wieso pourquoi likely "
        "happen happened"
    ),
    "constraint": (
        "exactly least most words sentences paragraphs bullet bullets capital capitalized "
        "lowercase uppercase format json markdown highlight title wrapped quotation "
        "separated placeholder keyword keywords times letter letters comma commas end "
        "finish repeat sort alphabetical alphabetically extract classify table list "
        "exactamente palabras genau wörter exactement mots"
    ),
    "draft": (
        "draft drafts drafting compose reword rephrase polish wording redacta redactar "
        "borrador entwurf formuliere formulieren rédige rédiger brouillon rascunho redige"
    ),
    "tool": (
        "weather forecast book booking reserve schedule calendar meeting remind reminder "
        "alarm send search find lookup look flight flights hotel restaurant stock "
        "price balance account order directions nearby current latest today tomorrow "
        "tonight weekend transfer cancel delete create update set get retrieve "
        "fetch temperature tiempo wetter météo"
    ),
}
WORDS: dict[str, tuple[str, ...]] = {k: tuple(v.split()) for k, v in _WORDS_TEXT.items()}

# concept -> CJK substrings, matched with `in` since CJK has no spaces
_CJK_TEXT: dict[str, str] = {
    "poem": ("诗 詩 歌词 歌詞 俳句 短歌"),
    "literary_form": ("藏头诗 回文诗 十四行诗 俳句 短歌 折句 あいうえお作文"),
    "story": ("故事 小说 小説 物語 剧本 脚本 角色 キャラクター 情节"),
    "doc": (
        "邮件 メール 信 手紙 文章 报告 報告 总结 要約 摘要 论文 論文 演讲 文案 ブログ レポート 作文"
    ),
    "code": ("代码 コード 函数 関数 程序 プログラム 报错 エラー 实现 脚本 bug python sql"),
    "math": ("计算 計算 求 解 方程 证明 証明 多少 いくつ 何個 概率 確率 面积 面積"),
    "reason": ("为什么 なぜ どうして 推理 逻辑 論理 是否"),
    "constraint": ("字以内 个字 文字以内 严格 必须 格式 JSON 列表"),
    "draft": ("起草 草拟 草稿 下書き 文面"),
    "tool": ("天气 天気 预订 予約 搜索 検索 发送 送信 提醒"),
}
CJK: dict[str, tuple[str, ...]] = {k: tuple(v.split()) for k, v in _CJK_TEXT.items()}

WORD_CONCEPT: dict[str, tuple[str, ...]] = {}
for _concept, _words in WORDS.items():
    for _word in _words:
        WORD_CONCEPT[_word] = (*WORD_CONCEPT.get(_word, ()), _concept)
