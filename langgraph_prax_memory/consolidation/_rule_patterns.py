"""The rule-based extractor's vocabulary: its regular expressions and the text helpers.

Pure: compiled patterns of first-person statements (preferences, changes, home, work),
entity cues, dates, causes (the junk test is ``_smalltalk.py``). The extractor
(``_rules.py``) reads sentences with them.
"""

from __future__ import annotations

import re
from typing import NamedTuple


def _terms(text: str) -> list[str]:
    return text.split()


#: Lower-cased terms that are entities wherever they appear, with their entity type.
KNOWN_VOCABULARY: dict[str, str] = {
    **{
        t: "tool"
        for t in _terms(
            "python rust javascript typescript java kotlin swift golang haskell scala ruby "
            "php perl elixir clojure julia matlab sql bash zsh docker kubernetes k8s helm "
            "terraform ansible postgres postgresql mysql sqlite mongodb redis kafka spark "
            "airflow neo4j qdrant elasticsearch langgraph langchain pytorch tensorflow numpy "
            "pandas polars scikit-learn xgboost react vue svelte angular django flask fastapi "
            "node.js nodejs linux ubuntu debian nixos windows macos ios android vim neovim "
            "emacs vscode helix git github gitlab jira notion obsidian slack discord figma "
            "excel aws gcp azure openai chatgpt claude ollama llama jupyter firefox chrome "
            "safari brave zed sublime intellij pycharm uv poetry pip conda fish linear "
            "trello asana dropbox spotify "
        )
    },
}
_SPEAKER = re.compile(
    r"^\s*(?:\[[^\]]{1,40}\]\s*|\d{4}-\d{2}-\d{2}[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?\s+)?"
    r"([A-Za-z][\w .'@-]{0,40}?)\s*:\s+(.*)$",
    re.S,
)
_NON_HUMAN = {"assistant", "ai", "system", "tool", "bot", "function"}
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_URL = re.compile(r"https?://[^\s<>\"')\]]+")
_CAPS = re.compile(r"\b[A-Z][\w'’&.-]*(?:\s+(?:of|de|la|van|von|du|da)?\s*[A-Z][\w'’&-]*)*")
_WORD = re.compile(r"[A-Za-z0-9][\w'’.+#-]*")
_MONTHS = _terms(
    "january february march april may june july august september october november december "
)
_DAYS = _terms("monday tuesday wednesday thursday friday saturday sunday")
_FILLER = {
    *_terms(
        "i i'm i've i'll i'd im ive hey hi hello thanks thank yes no yeah yep nope oh wow "
        "sure ok okay so but and or the a an this that these those it it's its my your we you "
        "he she they what when where why how who which if just also well great good nice cool "
        "awesome sounds let let's do did does is are was were have has had can could would "
        "should will not maybe please really totally definitely absolutely haha lol me our "
        "there here then now today tomorrow yesterday mr mrs ms dr by for in on at to with "
        "from as after before since once every all some any each being been glad sorry "
        "congrats congratulations hmm um uh right true agreed exactly anyway btw omg "
        "sometimes usually always never what's that's there's here's don't can't won't isn't "
        "didn't doesn't aren't wasn't his her their them us him thats whats "
    ),
    *_MONTHS,
    *_DAYS,
}
_ROLES_CUE = (
    r"friend|sister|brother|mom|mother|dad|father|wife|husband|son|daughter|boss|colleague|"
    r"coworker|partner|cousin|aunt|uncle|manager|mentor|teacher|doctor|dentist|therapist|"
    r"neighbou?r|roommate|flatmate|landlord|girlfriend|boyfriend|grandma|grandmother|grandpa|"
    r"grandfather|niece|nephew|coach|client|teammate|supervisor|cofounder|co-founder|buddy|"
    r"classmate|tutor|lawyer"
)
_PERSON_CUE = re.compile(
    r"\b(?:with|met|told|asked|called|named|" + _ROLES_CUE + r")\s+$",
    re.I,
)
_ROLES = (
    r"manager|boss|sister|brother|mom|mother|dad|father|wife|husband|son|daughter|friend|"
    r"colleague|coworker|co-worker|partner|cousin|aunt|uncle|mentor|teacher|doctor|dentist|"
    r"therapist|neighbou?r|roommate|flatmate|landlord|girlfriend|boyfriend|fianc[ée]e?|"
    r"grandma|grandmother|grandpa|grandfather|niece|nephew|coach|client|teammate|lead|"
    r"supervisor|cofounder|co-founder|best friend|buddy|classmate|tutor|lawyer|vet"
)
#: "my sister Sarah", "my manager Tom": a person in a relation to the speaker.
_MY_ROLE = re.compile(
    r"\b(?:[Mm]y|[Oo]ur)\s+(?:new\s+|old\s+|little\s+|big\s+|younger\s+|older\s+|best\s+)?"
    r"(?P<role>" + _ROLES + r")(?:,)?\s+(?P<name>[A-Z][a-z][\w'-]*(?:\s+[A-Z][a-z][\w'-]*)?)"
)
_PLACE_CUE = re.compile(
    r"\b(?:live|lives|living|lived|moved|moving|relocated|relocating|born|grew up|"
    r"(?:i'm|i am|we're|come|comes|came) from|"
    r"visited|visiting|trip|flew|travel(?:l)?ed|travel(?:l)?ing|back)\s+(?:in|to|from)?\s*$",
    re.I,
)
#: "Sarah lives in Japan": a third person's home.
_THEY_LIVE = re.compile(
    r"\b(?P<who>[A-Z][a-z][\w'-]*)\s+(?:now\s+)?(?:lives|moved|relocated|is living)\s+"
    r"(?:in|to)\s+(?P<place>[A-Z][^,.;!?]*)"
)
_ORG_WORDS = re.compile(
    r"\b(?:Inc|Corp|Corporation|Ltd|LLC|GmbH|University|College|Company|Bank|Foundation|"
    r"Institute|Group|Labs?|Agency|Hospital|School)\b"
)
_STOP_OBJECT = {"it", "that", "this", "them", "you", "him", "her", "us", "so", "to", "the"}
_CLAUSE_END = re.compile(
    r"\s*(?:[,.;:!?()]|\s(?:because|but|and|since|when|while|though|although|so|which|"
    r"as|if|for|with|on|at|in|over|instead|rather|than|more|now|anymore|too|very|every|each|to|"
    r"daily|these days|lately|nowadays|usually|always|again|from now|any more|altogether|"
    r"for good|last|this|next|yesterday|today|tomorrow|a lot|a bit|so much|very much|"
    r"a little|at all|most days|most of|quite|really|everywhere|anywhere|all the time|"
    r"in general|generally|mostly|whenever)\b).*$",
    re.I | re.S,
)
_ARTICLE = re.compile(r"^(?:the|a|an|my|our|some|using|to use)\s+", re.I)

#: ``supersedes`` value of a rule-based relation that replaces "the current value of the same
#: slot" without naming it ("I now prefer light mode"); the resolver
#: (:func:`~langgraph_prax_memory.consolidation._resolve.resolve_extraction`) turns it into the
#: concrete old target(s) found in the graph and earlier in the batch, or drops it.
SUPERSEDES_CURRENT = "*"

_OBJ = r"(?P<{name}>[^,.;:!?]+?)"
_ADV = r"(?:(?:really|also|still|just|now|actually|mostly|usually|definitely|much|totally|only|"
_ADV += r"generally|nowadays|lately)\s+)*"
#: Verbs of "I <verb> X" that state a preference or a habit (relation ``prefers``).
_PREF_VERBS = (
    r"(?:prefer|prefers|like|likes|love|loves|enjoy|enjoys|adore|use|uses|using|am using|"
    r"'m using|drink|drinks|drinking|eat|eats|eating|want|wanna|go with|going with|pick|"
    r"choose|stick with|sticking with|listen to|play|playing|read|watch|run on|work in|"
    r"code in|write in|ride|take)"
)
_PREFER = re.compile(
    r"\b(?:I|we)(?:'m| am| are)?\s+(?:really\s+|also\s+|still\s+|do\s+|just\s+|mostly\s+|"
    r"usually\s+|always\s+)?"
    r"(?:prefer|like|love|enjoy|adore|use|drink|eat|code in|write in|listen to)s?\s+"
    r"(?P<obj>[^,.;!?]+)",
    re.I,
)
#: "I go to work by car", "I commute by bike": a habit of getting somewhere.
_BY_MEANS = re.compile(
    r"\b(?:I|we)\s+(?:usually\s+|always\s+|mostly\s+)?(?:go|get|commute|travel|come)"
    r"(?:\s+to\s+\w+)?\s+by\s+(?P<obj>[^,.;!?]+)",
    re.I,
)
#: "I (now) prefer X over / instead of / rather than Y" (and "X is better than Y for me").
_NOW_PREFER = re.compile(
    r"\b(?:I|we)(?:'m| am| are| have| 've)?\s+"
    + _ADV
    + _PREF_VERBS
    + r"\s+"
    + _OBJ.format(name="new")
    + r"\s+(?:over|instead of|rather than|more than|in place of)\s+"
    + _OBJ.format(name="old")
    + r"(?:\s+(?:now|these days|nowadays|anymore|any more)\b.*)?\s*(?:[,.;:!?]|$)",
    re.I,
)
#: "I switched / moved / migrated from Y to X".
_SWITCHED = re.compile(
    r"\b(?:I|we)(?:'ve| have)?\s+(?:just\s+|finally\s+|recently\s+)?"
    r"(?:switched|switch|moved|changed|migrated|gone|went|converted|transitioned|upgraded)"
    r"(?:\s+over)?\s+from\s+"
    + _OBJ.format(name="old")
    + r"\s+(?:to|for)\s+"
    + _OBJ.format(name="new")
    + r"(?:\s+(?:now|these days|instead)\b.*)?\s*(?:[,.;:!?]|$)",
    re.I,
)
#: "I replaced Y with X", "I swapped / traded / ditched Y for X".
_REPLACED = re.compile(
    r"\b(?:I|we)(?:'ve| have)?\s+(?:just\s+|finally\s+)?"
    r"(?:replaced|swapped|traded|ditched|dropped|exchanged|substituted)\s+"
    + _OBJ.format(name="old")
    + r"\s+(?:with|for)\s+"
    + _OBJ.format(name="new")
    + r"\s*(?:[,.;:!?]|$)",
    re.I,
)
#: "I no longer like Y", "I stopped using Y", "I gave up Y", "I'm not into Y anymore".
_NO_LONGER = re.compile(
    r"\b(?:I|we)(?:'ve| have|'m| am| are)?\s+(?:"
    r"(?:no longer|don't|do not|never|stopped|quit|not)\s+(?:really\s+)?"
    r"(?:like|prefer|love|enjoy|use|using|liking|drink|drinking|eat|eating|into|a fan of|"
    r"playing|play|watching|reading|going with|on)s?"
    r"|used to\s+(?:like|love|prefer|enjoy|use|drink|eat|play|watch|read)|"
    r"gave up(?:\s+on)?|given up(?:\s+on)?|stopped|quit|dropped|ditched|abandoned|"
    r"done with|over)"
    r"\s+(?:using\s+|drinking\s+|eating\s+|on\s+)?(?P<old>[^,.;!?]+?)"
    r"(?:\s+(?:anymore|any more|for good|altogether|now|these days|lately|entirely))*"
    r"\s*(?:[,.;!?]|\s+(?:and|but)\b|$)",
    re.I,
)
#: "Y? Not anymore." after a preference: handled as a closing of the object named before.
_NOT_ANYMORE = re.compile(
    r"^(?P<old>[^,.;!?]+?)\s*[,:-]?\s*(?:is\s+|are\s+)?not\s+(?:any\s?more|for me anymore)\b",
    re.I,
)
#: A sentence that is only "Not anymore." (its object is the previous sentence's).
_ONLY_NOT_ANYMORE = re.compile(r"^(?:but\s+|well,?\s+)?(?:not|no)\s+any\s?more\b", re.I)
#: "…, tea these days" after a closing: the new value.
_THESE_DAYS_TAIL = re.compile(
    r"^\s*[,;]?\s*(?:and\s+|but\s+)?(?:now\s+|I\s+(?:drink|use|eat|prefer|like)\s+)?"
    r"(?P<new>[^,.;!?]+?)\s+(?:these days|now|nowadays|instead)\s*[.!]?\s*$",
    re.I,
)
#: "I switched to X", "I moved over to X", "I changed to X" (old value unnamed).
_SWITCHED_TO = re.compile(
    r"\b(?:I|we)(?:'ve| have)?\s+(?:just\s+|finally\s+|recently\s+|now\s+)?"
    r"(?:switched|moved|changed|migrated|converted|transitioned|gone over|went over|"
    r"upgraded|relocated)(?:\s+over)?\s+to\s+"
    + _OBJ.format(name="new")
    + r"(?:\s+(?:now|these days|instead|recently|last\s+\w+|this\s+\w+)\b.*)?\s*(?:[,.;:!?]|$)",
    re.I,
)
#: "I (now) VERB X" for a change cue in the sentence (old value unnamed).
_NEW_HABIT = re.compile(
    r"\b(?:I|we)(?:'m| am| are| have|'ve)?\s+"
    + _ADV
    + _PREF_VERBS
    + r"\s+"
    + _OBJ.format(name="new")
    + r"(?:\s+(?:now|these days|nowadays|instead|from now on|lately|going forward)\b.*)?"
    r"\s*(?:[,.;:!?]|$)",
    re.I,
)
#: "X is my new favourite / default / go-to".
_NEW_FAVOURITE = re.compile(
    r"^(?:but\s+|now\s+)?(?P<new>[^,.;!?]+?)\s+(?:is|are)\s+(?:now\s+)?my\s+(?:new\s+)?"
    r"(?:favou?rite|default|go-to|choice|thing)\b",
    re.I,
)
#: "I live in X", "I moved to X", "I now live in X": the user's home (relation ``lives_in``).
_LIVE_IN = re.compile(
    r"\b(?:I|we)(?:'ve| have|'m| am|'re| are)?\s*(?:now\s+|just\s+|recently\s+|currently\s+|"
    r"still\s+)?(?:live|lives|living|am living|'m living|moved|relocated|moving|relocating|"
    r"based|settled)"
    r"(?:\s+back)?\s+(?P<prep>in|to)\s+(?P<obj>[^,.;!?]+)",
    re.I,
)
#: A change in the sentence: a preference stated with it replaces the current one of its slot.
_CHANGE_CUE = re.compile(
    r"\b(?:(?<!right )(?<!just )(?<!as of )now|nowadays|these days|from now on|going forward|"
    r"lately|any ?more|no longer|"
    r"instead|switched|changed my mind|on second thought|not anymore|recently started|"
    r"these days|since then|from today|new favou?rite|my new|again|back to|any longer)\b",
    re.I,
)
#: A sentence that announces a change stated in the next one ("I changed my mind. I prefer …").
_CHANGE_ANNOUNCE = re.compile(
    r"\b(?:changed my mind|on second thought|scratch that|correction|update:|not anymore|"
    r"things have changed|that changed)\b",
    re.I,
)
#: Relations one subject has one current value of: a new one replaces every current one.
SINGLE_VALUED = frozenset({"lives_in", "works_at", "partner_of"})
_WORK_ON = re.compile(
    r"\b(?:I|we)(?:'m| am| are)?\s+(?:currently\s+|still\s+|now\s+)?(?:work|working)\s+"
    r"(?:as\s+(?:a|an)\s+[\w-]+(?:\s+[\w-]+)?\s+)?(?P<prep>on|at|for)\s+(?P<obj>[^,.;!?]+)",
    re.I,
)
#: A new job: "I got a new job at X", "I started at X", "I joined X" (``works_at``, replacing
#: the current employer).
_NEW_JOB = re.compile(
    r"\b(?i:I|we)(?i:'ve| have)?\s+(?i:just\s+|recently\s+|finally\s+|now\s+)?"
    r"(?:(?i:got|landed|took|accepted|started|began|have)\s+(?i:a\s+|my\s+|the\s+)?"
    r"(?i:new\s+)?(?i:job|position|role|internship|work|working)\s+(?i:at|with|for)\s+"
    r"|(?i:started|begin|began)\s+(?i:at|with)\s+|(?i:joined)\s+(?i:the\s+)?)"
    r"(?P<obj>[A-Z][^,.;!?]*)"
)
#: Leaving a job: "I quit my job at X", "I left X" (closes ``works_at`` X).
_LEFT_JOB = re.compile(
    r"\b(?i:I|we)(?i:'ve| have)?\s+(?i:just\s+|finally\s+)?(?:(?i:quit|left|lost)\s+"
    r"(?i:my\s+(?:job|position|role)\s+(?:at|with)\s+)|(?i:resigned from)\s+)"
    r"(?P<old>[A-Z][^,.;!?]*)"
)
#: A partner: "my new girlfriend Ana", "I'm dating Ana", "I married Ana" (``partner_of``).
#: Not a bare "with": "I'm with Vodafone", "I'm with Santander" name a provider far more
#: often than a partner, and nothing in the words tells the two apart.
_PARTNER = re.compile(
    r"(?:\b(?i:my)\s+(?P<new_word>(?i:new)\s+)?(?i:partner|girlfriend|boyfriend|wife|husband|"
    r"fianc[ée]e?|spouse)(?:,)?\s+"
    r"|\b(?i:I)(?i:'m| am|'ve| have)?\s+(?i:now\s+)?(?P<verb>(?i:dating|seeing|married|"
    r"marrying|engaged to|together with|in a relationship with|got married to))\s+)"
    r"(?P<obj>[A-Z][a-z][\w'-]*(?:\s+[A-Z][a-z][\w'-]*)?)"
)
#: A break-up: "I broke up with Ana", "Ana and I split up" (closes ``partner_of``).
_BREAK_UP = re.compile(
    r"\b(?i:I)(?i:'ve| have)?\s+(?i:broke up|split up|separated|divorced|parted ways)"
    r"(?:\s+(?i:with|from))?\s+(?P<old>[A-Z][a-z][\w'-]*(?:\s+[A-Z][a-z][\w'-]*)?)"
    r"|\b(?P<old2>[A-Z][a-z][\w'-]*(?:\s+[A-Z][a-z][\w'-]*)?)\s+(?i:and\s+I)\s+"
    r"(?i:broke up|split up|separated|divorced|parted ways)"
)
#: The diets a person follows one at a time, as said (a new one replaces the old: slot
#: supersession's diet category), and the restrictions that add to a diet rather than
#: replace it. The diet pattern below reads both; supersession knows a memory naming one
#: speaks of what the person eats.
DIETS = (
    r"vegan|vegetarian|pescatarian|keto|paleo|flexitarian|plant-based|plant based|meat-free|"
    r"carnivore|omnivore"
)
RESTRICTIONS = r"gluten-free|dairy-free"
#: A diet: "I'm vegan now", "I went vegetarian", "I've been pescatarian since May".
_DIET = re.compile(
    r"\b(?:I|we)(?:'m|'re| am| are|'ve been| have been| went| became| turned| have gone|"
    r"'ve gone| am now|'m now)\s+(?:now\s+|fully\s+|completely\s+|strictly\s+|a\s+|mostly\s+)?"
    rf"(?P<new>{DIETS}|{RESTRICTIONS})\b",
    re.I,
)
#: A renamed project: "we renamed Phoenix to Firebird", "Phoenix is now called Firebird".
_RENAMED = re.compile(
    r"\b(?i:renamed)\s+(?i:the\s+project\s+|project\s+|our\s+project\s+|my\s+project\s+)?"
    r"(?P<old>[A-Z][\w-]*(?:\s+[A-Z][\w-]*)?)\s+(?i:to|as)\s+"
    r"(?P<new>[A-Z][\w-]*(?:\s+[A-Z][\w-]*)?)"
    r"|(?:(?i:the\s+)?(?i:project)\s+)?(?P<old2>[A-Z][\w-]*(?:\s+[A-Z][\w-]*)?)\s+"
    r"(?i:is|was|has been|got)\s+(?i:now\s+)?"
    r"(?i:renamed|(?:now\s+)?called|now\s+named)\s+(?i:to\s+)?"
    r"(?P<new2>[A-Z][\w-]*(?:\s+[A-Z][\w-]*)?)"
)
_INTERESTED = re.compile(
    r"\b(?:I|we)(?:'m| am| are)?\s+(?:really\s+|very\s+|also\s+)?"
    r"(?:interested in|into|curious about|learning|want to learn)\s+(?P<obj>[^,.;!?]+)",
    re.I,
)
_CRITICAL = re.compile(
    r"\b(?:decided|decision|we will|we'll go with|going forward|from now on|always|never|"
    r"must|remember that|don't forget|my name is|call me|allergic|allergy|important to me|"
    r"deadline|no longer|switched|anymore)\b",
    re.I,
)
_PREFERENCE = re.compile(
    r"\b(?:prefer|favou?rite|i (?:really |also |still )?(?:like|love|hate|dislike|enjoy)|"
    r"can't stand|(?:'d|would) rather)\b",
    re.I,
)
_CONTEXT = re.compile(
    r"\b(?:i work|i'm working|i am working|i live|i moved|i'm a|i am a|i have|i've been|"
    r"i (?:usually |always )?(?:go|commute|get|travel) (?:to \w+ )?by|"
    r"i started|i'm planning|i plan|i'm going to|i am going to|i want to|i'm learning|"
    r"i'm interested|my (?:wife|husband|partner|sister|brother|kids?|children|son|daughter|"
    r"dog|cat|job|team|project|birthday|family|friend|mom|dad|mother|father|boss|manager|"
    r"colleague|co-?worker|neighbou?r)|"
    r"our project|we're building|we use|i use|i'm using|i joined|i graduated|i got)\b",
    re.I,
)
#: "kind of" / "sort of" hedge a verb or an adjective ("I kind of like it"), not a noun
#: after a determiner ("the same kind of nursing", "what sort of car").
_KIND_OF = "".join(
    rf"(?<!\b{d} )" for d in ("same", "what", "this", "that", "the", "a", "any", "some", "which")
)
_HEDGE = re.compile(
    r"\b(?:maybe|might|perhaps|probably|i think|i guess|not sure|"
    + _KIND_OF
    + r"(?:kind|sort) of|considering|thinking about|possibly|i suppose)\b",
    re.I,
)
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|my|me|we|our|we're)\b", re.I)
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTH_DATE = re.compile(
    r"\b(?:(?P<d1>\d{1,2})(?:st|nd|rd|th)?\s+(?P<m1>" + "|".join(_MONTHS) + r")"
    r"|(?P<m2>" + "|".join(_MONTHS) + r")\s+(?P<d2>\d{1,2})(?:st|nd|rd|th)?)"
    r"(?:,?\s+(?P<y>\d{4}))?\b",
    re.I,
)
_RELATIVE = re.compile(
    r"\b(?P<rel>yesterday|today|tonight|this morning|this afternoon|this evening|last night|"
    r"last week|last weekend|last month|last year|(?:last|on) (?P<day>" + "|".join(_DAYS) + r"))\b",
    re.I,
)
_PAST = re.compile(
    r"\b(?:\w+ed|went|met|had|was|were|did|got|ran|saw|took|made|gave|bought|came|left|"
    r"won|lost|began|wrote|read|found|told|spent|visited|attended|finished)\b",
    re.I,
)
_BECAUSE = re.compile(r"^(?P<effect>.+?)\s*,?\s+(?:because|since|due to)\s+(?P<cause>.+)$", re.I)
_SO = re.compile(r"^(?P<cause>.+?)\s*,\s*(?:so|therefore|which is why)\s+(?P<effect>.+)$", re.I)


def _clean_object(text: str) -> str | None:
    obj = _CLAUSE_END.sub("", text.strip())
    obj = _ARTICLE.sub("", obj).strip(" '\"")
    words = obj.split()
    if not words or len(words) > 5 or words[0].lower() in _STOP_OBJECT:
        return None
    if words[0].lower() in {"to", "when", "how", "that", "being", "having", "doing"}:
        return None
    return " ".join(words)


#: Where a sentence holds a second statement of the same speaker: "…, and (I) work at X",
#: "… but (I) live in Y" (a conjunction followed by a verb, optionally after "I"/"now").
_CLAUSE_SPLIT = re.compile(
    r"\s*,?\s+(?:and|but|so)\s+(?=(?:(?:I|we)(?:'m|'ve| am| have)?\s+)?"
    r"(?:now\s+|also\s+|then\s+|recently\s+|just\s+|currently\s+)?"
    r"(?:work|works|working|live|lives|living|moved|relocated|started|joined|got|use|using|"
    r"prefer|like|love|drink|eat|am|quit|left|switched|changed|took|married|broke|renamed|"
    r"went|became|began|based|dating|seeing)\b)",
    re.I,
)


def _clauses(sentence: str) -> list[str]:
    """The statements of one sentence, each with its subject.

    "I moved to X and work at Y" → "I moved to X", "I work at Y"; the sentence itself when
    it holds one statement.
    """
    parts = [p.strip() for p in _CLAUSE_SPLIT.split(sentence) if p and p.strip()]
    if len(parts) < 2 or _NO_LONGER.search(parts[0]):
        return [sentence]  # "I stopped X and switched to Y" is read as one change
    out = [parts[0]]
    for part in parts[1:]:
        out.append(part if re.match(r"(?:I|we)\b", part, re.I) else "I " + part)
    return out


_ABBREVIATION = re.compile(
    r"(?:^|\s)(?:St|Dr|Mr|Mrs|Ms|Prof|Jr|Sr|vs|etc|e\.g|i\.e|No|Mt|Ave|Inc|Ltd|Co)\.$"
)


def _sentences(text: str) -> list[str]:
    out: list[str] = []
    for piece in _SENTENCE.split(text):
        if not piece or not piece.strip():
            continue
        if out and _ABBREVIATION.search(out[-1]) and "\n" not in piece:
            out[-1] = f"{out[-1]} {piece.strip()}"  # "St. Mary's": one sentence
        else:
            out.append(piece.strip())
    return out


def _has_word(sentence: str, term: str) -> bool:
    return re.search(r"(?<![\w])" + re.escape(term) + r"(?![\w])", sentence, re.I) is not None


#: Words that make "moved to X" a tool, not a place, when X is not in the vocabulary.
_NOT_PLACE = re.compile(
    r"\b(?:mode|theme|editor|code|app|tool|version|plan|diet|tea|coffee|ide|language|stack)\b", re.I
)


def _looks_like_place(name: str) -> bool:
    """A capitalised name that is not obviously a product ("Japan", "New York", "Lisbon")."""
    words = name.split()
    return (
        0 < len(words) <= 3
        and all(w[:1].isupper() for w in words if w.lower() not in {"of", "de", "la"})
        and _NOT_PLACE.search(name) is None
        and not any(ch.isdigit() for ch in name)
    )


class _NewValue(NamedTuple):
    """A statement of a new value whose old one is not named, tried on a sentence in order."""

    pattern: re.Pattern[str]
    #: Only in a sentence with a change cue ("I drink tea now" after "not coffee anymore").
    after_change: bool = False
    #: The verb can make it a home: "I moved to Japan" is ``lives_in``, not ``prefers``.
    verb_decides: bool = False
    #: The user's home (relation ``lives_in``, group ``obj``), not a preference.
    home: bool = False
    #: A match ends the search, whether or not it gave a relation.
    ends_search: bool = False


#: Step 3 of the first-person patterns: "I switched to X", "I live in X", "X is my new
#: favourite", "I (now) VERB X" after a change cue; the first that gives a relation wins.
_NEW_VALUES = (
    _NewValue(_SWITCHED_TO, verb_decides=True),
    _NewValue(_LIVE_IN, home=True),
    _NewValue(_NEW_FAVOURITE, ends_search=True),
    _NewValue(_NEW_HABIT, after_change=True),
)
_TOPIC = {"": ("prefers", "topic")}
#: Step 4, plain statements, every one that matches: pattern → (relation, entity type), by
#: the pattern's preposition when it has one ("I work on X" / "I work at X").
_STATEMENTS: tuple[tuple[re.Pattern[str], dict[str, tuple[str, str]]], ...] = (
    (_PREFER, _TOPIC),
    (_BY_MEANS, _TOPIC),
    (_INTERESTED, {"": ("interested_in", "topic")}),
    (
        _WORK_ON,
        {
            "on": ("works_on", "project"),
            "at": ("works_at", "organization"),
            "for": ("works_at", "organization"),
        },
    ),
)
