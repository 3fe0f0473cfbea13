/**
 * Interface texts and move notation in English, Slovenian, Serbian (Latin script) and Slovak.
 * Piece letters follow the FIDE Laws, Appendix C, in each language's edition
 * (/work/shared/reference/fide-laws.md): English K Q R B N; Slovenian and Serbian K D T L S;
 * Slovak K D V S J. PGN stays in English; only the display is translated.
 */
export type Lang = 'en' | 'sl' | 'sr' | 'sk';
export type Notation = 'letters' | 'figurines';

export const LANGS: { code: Lang; name: string }[] = [
  { code: 'en', name: 'English' },
  { code: 'sl', name: 'Slovenščina' },
  { code: 'sr', name: 'Srpski' },
  { code: 'sk', name: 'Slovenčina' },
];

/** Letters for English K Q R B N, in that order. */
const PIECE_LETTERS: Record<Lang, string> = { en: 'KQRBN', sl: 'KDTLS', sr: 'KDTLS', sk: 'KDVSJ' };
const FIGURINES = '♔♕♖♗♘';

/**
 * SAN in the chosen language. In SAN the only capital letters are piece letters (files are
 * lower case, castling is O-O with capital O — which is not a piece and is kept).
 */
export function localSan(san: string, lang: Lang, notation: Notation): string {
  const target = notation === 'figurines' ? FIGURINES : PIECE_LETTERS[lang];
  let out = '';
  for (const ch of san) {
    const i = 'KQRBN'.indexOf(ch);
    out += i >= 0 ? Array.from(target)[i]! : ch;
  }
  return out;
}

type Key =
  | 'round'
  | 'table'
  | 'backToLive'
  | 'toMove'
  | 'result'
  | 'moves'
  | 'uncertainOrder'
  | 'recordBreak'
  | 'recordBreakAccepted'
  | 'boardOutOfStep'
  | 'incidents'
  | 'noIncidents'
  | 'language'
  | 'notation'
  | 'letters'
  | 'figurines'
  | 'live'
  | 'reconnecting'
  | 'notStarted'
  | 'inProgress'
  | 'overview'
  | 'reviewing'
  | 'article'
  | 'consequence'
  | 'unknownGame'
  | 'white'
  | 'black'
  | 'arbiterDesk'
  | 'loggedInAs'
  | 'logout'
  | 'rounds'
  | 'games'
  | 'startRound'
  | 'closeRound'
  | 'closeAnyway'
  | 'cancel'
  | 'upcoming'
  | 'finished'
  | 'players'
  | 'status'
  | 'plies'
  | 'reason'
  | 'reasonHint'
  | 'open'
  | 'sessionEnded'
  | 'logIn'
  | 'networkError'
  | 'changeResult'
  | 'confirm'
  | 'arbiterActions'
  | 'reinstate'
  | 'reinstateHint'
  | 'takeBack'
  | 'setPosition'
  | 'setPositionButton'
  | 'confirmPosition'
  | 'amendments'
  | 'noAmendments'
  | 'undo'
  | 'undone'
  | 'undoReason'
  | 'confirmUndo'
  | 'done'
  | 'noGames'
  | 'publicView'
  | 'resultButtons';

const TEXT: Record<Lang, Record<Key, string>> = {
  en: {
    round: 'Round',
    table: 'Table',
    backToLive: 'Back to live',
    toMove: 'to move',
    result: 'Result',
    moves: 'Moves',
    boardOutOfStep: 'The record has lost the thread: this is the board as it stands; the moves continue once it is put right.',
    uncertainOrder: 'Not seen on the board: this order is a guess. Also possible:',
    recordBreak: 'The record breaks here: play went on from a board the moves recorded cannot reach. The arbiter may still give the missing moves.',
    recordBreakAccepted: 'The record breaks here: the arbiter accepted the board position.',
    incidents: 'Incidents',
    noIncidents: 'No incidents',
    language: 'Language',
    notation: 'Notation',
    letters: 'Letters',
    figurines: 'Figurines',
    live: 'Live',
    reconnecting: 'Reconnecting…',
    notStarted: 'Not started',
    inProgress: 'In progress',
    overview: 'All tables',
    reviewing: 'Reviewing move',
    article: 'Article',
    consequence: 'Consequence',
    unknownGame: 'No such game',
    white: 'White',
    black: 'Black',
    arbiterDesk: "Arbiter's desk",
    loggedInAs: 'Logged in as',
    logout: 'Log out',
    rounds: 'Rounds',
    games: 'Games',
    startRound: 'Start',
    closeRound: 'Close',
    closeAnyway: 'Close anyway',
    cancel: 'Cancel',
    upcoming: 'Upcoming',
    finished: 'Finished',
    players: 'Players',
    status: 'Status',
    plies: 'Plies',
    reason: 'Reason',
    reasonHint: 'optional, e.g. White resigned',
    open: 'Open',
    sessionEnded: 'Not logged in, or the session has ended',
    logIn: 'Log in',
    networkError: 'No answer from the server',
    changeResult: 'Change the result to',
    confirm: 'Confirm',
    arbiterActions: 'Arbiter actions',
    reinstate: 'Reinstate the position after the selected move',
    reinstateHint: 'Select a move in the list first',
    takeBack: 'Take back the {n} later plies?',
    setPosition: 'Set position (FEN)',
    setPositionButton: 'Set position',
    confirmPosition: 'Start a new game from this position?',
    amendments: 'Amendments',
    noAmendments: 'No amendments yet',
    undo: 'Undo',
    undone: 'undone',
    undoReason: 'Why undo? (required)',
    confirmUndo: 'Undo this amendment? The game is derived again without it.',
    done: 'Done',
    noGames: 'No games in this round yet',
    publicView: 'Public view',
    resultButtons: 'Result',
  },
  sl: {
    round: 'Kolo',
    table: 'Miza',
    backToLive: 'Nazaj v živo',
    toMove: 'na potezi',
    result: 'Izid',
    moves: 'Poteze',
    boardOutOfStep: 'Zapis je izgubil nit: to je plošča, kakršna je; poteze se nadaljujejo, ko bo popravljeno.',
    uncertainOrder: 'Ni bilo videti na plošči: ta vrstni red je ugibanje. Možno tudi:',
    recordBreak: 'Zapis se tu prekine: igra se je nadaljevala s plošče, ki je zapisane poteze ne dosežejo. Sodnik lahko še vpiše manjkajoče poteze.',
    recordBreakAccepted: 'Zapis se tu prekine: sodnik je sprejel pozicijo na plošči.',
    incidents: 'Nepravilnosti',
    noIncidents: 'Ni nepravilnosti',
    language: 'Jezik',
    notation: 'Zapis',
    letters: 'Črke',
    figurines: 'Figurice',
    live: 'V živo',
    reconnecting: 'Ponovno povezovanje…',
    notStarted: 'Ni se začela',
    inProgress: 'V teku',
    overview: 'Vse mize',
    reviewing: 'Pregled poteze',
    article: 'Člen',
    consequence: 'Posledica',
    unknownGame: 'Te partije ni',
    white: 'Beli',
    black: 'Črni',
    arbiterDesk: 'Sodniški pult',
    loggedInAs: 'Prijavljeni kot',
    logout: 'Odjava',
    rounds: 'Kola',
    games: 'Partije',
    startRound: 'Začni',
    closeRound: 'Zaključi',
    closeAnyway: 'Vseeno zaključi',
    cancel: 'Prekliči',
    upcoming: 'Napovedano',
    finished: 'Končano',
    players: 'Igralca',
    status: 'Stanje',
    plies: 'Pol-poteze',
    reason: 'Razlog',
    reasonHint: 'neobvezno, npr. beli je predal',
    open: 'Odpri',
    sessionEnded: 'Niste prijavljeni ali pa je seja potekla',
    logIn: 'Prijava',
    networkError: 'Strežnik se ne odziva',
    changeResult: 'Spremeni izid v',
    confirm: 'Potrdi',
    arbiterActions: 'Sodniška dejanja',
    reinstate: 'Obnovi pozicijo po izbrani potezi',
    reinstateHint: 'Najprej izberite potezo na seznamu',
    takeBack: 'Razveljavim {n} kasnejših pol-potez?',
    setPosition: 'Postavi pozicijo (FEN)',
    setPositionButton: 'Postavi',
    confirmPosition: 'Začnem novo partijo iz te pozicije?',
    amendments: 'Popravki',
    noAmendments: 'Še ni popravkov',
    undo: 'Razveljavi',
    undone: 'razveljavljeno',
    undoReason: 'Zakaj razveljaviti? (obvezno)',
    confirmUndo: 'Razveljavim ta popravek? Partija bo ponovno izpeljana brez njega.',
    done: 'Opravljeno',
    noGames: 'V tem kolu še ni partij',
    publicView: 'Javni pogled',
    resultButtons: 'Izid',
  },
  sr: {
    round: 'Kolo',
    table: 'Sto',
    backToLive: 'Nazad uživo',
    toMove: 'na potezu',
    result: 'Rezultat',
    moves: 'Potezi',
    boardOutOfStep: 'Zapis je izgubio nit: ovo je tabla kakva jeste; potezi se nastavljaju kada se ispravi.',
    uncertainOrder: 'Nije viđeno na tabli: ovaj redosled je pretpostavka. Moguće je i:',
    recordBreak: 'Zapis se ovde prekida: igra je nastavljena sa table do koje zapisani potezi ne vode. Sudija još može da upiše poteze koji nedostaju.',
    recordBreakAccepted: 'Zapis se ovde prekida: sudija je prihvatio poziciju na tabli.',
    incidents: 'Nepravilnosti',
    noIncidents: 'Nema nepravilnosti',
    language: 'Jezik',
    notation: 'Notacija',
    letters: 'Slova',
    figurines: 'Figurice',
    live: 'Uživo',
    reconnecting: 'Ponovno povezivanje…',
    notStarted: 'Nije počela',
    inProgress: 'U toku',
    overview: 'Svi stolovi',
    reviewing: 'Pregled poteza',
    article: 'Član',
    consequence: 'Posledica',
    unknownGame: 'Nema te partije',
    white: 'Beli',
    black: 'Crni',
    arbiterDesk: 'Sudijski sto',
    loggedInAs: 'Prijavljeni ste kao',
    logout: 'Odjava',
    rounds: 'Kola',
    games: 'Partije',
    startRound: 'Počni',
    closeRound: 'Zaključi',
    closeAnyway: 'Ipak zaključi',
    cancel: 'Otkaži',
    upcoming: 'Predstojeće',
    finished: 'Završeno',
    players: 'Igrači',
    status: 'Stanje',
    plies: 'Polupotezi',
    reason: 'Razlog',
    reasonHint: 'opciono, npr. beli je predao',
    open: 'Otvori',
    sessionEnded: 'Niste prijavljeni ili je sesija istekla',
    logIn: 'Prijava',
    networkError: 'Server ne odgovara',
    changeResult: 'Promeni rezultat u',
    confirm: 'Potvrdi',
    arbiterActions: 'Sudijske radnje',
    reinstate: 'Vrati poziciju posle izabranog poteza',
    reinstateHint: 'Prvo izaberite potez na listi',
    takeBack: 'Poništiti {n} kasnijih polupoteza?',
    setPosition: 'Postavi poziciju (FEN)',
    setPositionButton: 'Postavi',
    confirmPosition: 'Započeti novu partiju iz ove pozicije?',
    amendments: 'Ispravke',
    noAmendments: 'Još nema ispravki',
    undo: 'Poništi',
    undone: 'poništeno',
    undoReason: 'Zašto poništiti? (obavezno)',
    confirmUndo: 'Poništiti ovu ispravku? Partija se ponovo izvodi bez nje.',
    done: 'Urađeno',
    noGames: 'U ovom kolu još nema partija',
    publicView: 'Javni prikaz',
    resultButtons: 'Rezultat',
  },
  sk: {
    round: 'Kolo',
    table: 'Stôl',
    backToLive: 'Späť naživo',
    toMove: 'na ťahu',
    result: 'Výsledok',
    moves: 'Ťahy',
    boardOutOfStep: 'Záznam stratil niť: toto je doska, ako stojí; ťahy pokračujú, keď sa to napraví.',
    uncertainOrder: 'Nevidené na doske: toto poradie je odhad. Možné aj:',
    recordBreak: 'Záznam sa tu prerušuje: hra pokračovala z dosky, ku ktorej zapísané ťahy nevedú. Rozhodca ešte môže doplniť chýbajúce ťahy.',
    recordBreakAccepted: 'Záznam sa tu prerušuje: rozhodca prijal pozíciu na doske.',
    incidents: 'Nezrovnalosti',
    noIncidents: 'Žiadne nezrovnalosti',
    language: 'Jazyk',
    notation: 'Zápis',
    letters: 'Písmená',
    figurines: 'Figúrky',
    live: 'Naživo',
    reconnecting: 'Opätovné pripájanie…',
    notStarted: 'Nezačala',
    inProgress: 'Prebieha',
    overview: 'Všetky stoly',
    reviewing: 'Prehľad ťahu',
    article: 'Článok',
    consequence: 'Dôsledok',
    unknownGame: 'Táto partia neexistuje',
    white: 'Biely',
    black: 'Čierny',
    arbiterDesk: 'Pracovisko rozhodcu',
    loggedInAs: 'Prihlásený ako',
    logout: 'Odhlásiť sa',
    rounds: 'Kolá',
    games: 'Partie',
    startRound: 'Začať',
    closeRound: 'Uzavrieť',
    closeAnyway: 'Aj tak uzavrieť',
    cancel: 'Zrušiť',
    upcoming: 'Nadchádzajúce',
    finished: 'Ukončené',
    players: 'Hráči',
    status: 'Stav',
    plies: 'Polťahy',
    reason: 'Dôvod',
    reasonHint: 'nepovinné, napr. biely sa vzdal',
    open: 'Otvoriť',
    sessionEnded: 'Nie ste prihlásený alebo relácia vypršala',
    logIn: 'Prihlásiť sa',
    networkError: 'Server neodpovedá',
    changeResult: 'Zmeniť výsledok na',
    confirm: 'Potvrdiť',
    arbiterActions: 'Úkony rozhodcu',
    reinstate: 'Obnoviť pozíciu po vybranom ťahu',
    reinstateHint: 'Najprv vyberte ťah v zozname',
    takeBack: 'Vrátiť {n} neskorších polťahov?',
    setPosition: 'Nastaviť pozíciu (FEN)',
    setPositionButton: 'Nastaviť',
    confirmPosition: 'Začať novú partiu z tejto pozície?',
    amendments: 'Opravy',
    noAmendments: 'Zatiaľ žiadne opravy',
    undo: 'Vrátiť',
    undone: 'vrátené',
    undoReason: 'Prečo vrátiť? (povinné)',
    confirmUndo: 'Vrátiť túto opravu? Partia sa znova odvodí bez nej.',
    done: 'Hotovo',
    noGames: 'V tomto kole ešte nie sú partie',
    publicView: 'Verejný pohľad',
    resultButtons: 'Výsledok',
  },
};

const TERMINATIONS: Record<string, Record<Lang, string>> = {
  checkmate: { en: 'checkmate', sl: 'mat', sr: 'mat', sk: 'mat' },
  stalemate: { en: 'stalemate', sl: 'pat', sr: 'pat', sk: 'pat' },
  'insufficient material': { en: 'insufficient material', sl: 'premalo materiala', sr: 'nedovoljno materijala', sk: 'nedostatok materiálu' },
  'fivefold repetition': { en: 'fivefold repetition', sl: 'petkratna ponovitev', sr: 'petostruko ponavljanje', sk: 'päťnásobné opakovanie' },
  '75-move rule': { en: '75-move rule', sl: 'pravilo 75 potez', sr: 'pravilo 75 poteza', sk: 'pravidlo 75 ťahov' },
  'result set on the board': { en: 'result set on the board', sl: 'izid postavljen na deski', sr: 'rezultat postavljen na tabli', sk: 'výsledok zadaný na šachovnici' },
  'arbiter decision': { en: 'arbiter decision', sl: 'odločitev sodnika', sr: 'odluka sudije', sk: 'rozhodnutie rozhodcu' },
  'time forfeit': { en: 'time forfeit', sl: 'prekoračen čas', sr: 'prekoračenje vremena', sk: 'prekročenie času' },
  resignation: { en: 'resignation', sl: 'predaja', sr: 'predaja', sk: 'vzdanie' },
  agreement: { en: 'agreement', sl: 'dogovor', sr: 'dogovor', sk: 'dohoda' },
};

export class I18n {
  constructor(
    public lang: Lang,
    public notation: Notation,
  ) {}

  t(key: Key): string {
    return TEXT[this.lang][key];
  }

  san(san: string): string {
    return localSan(san, this.lang, this.notation);
  }

  termination(text: string | null): string {
    if (!text) return '';
    return TERMINATIONS[text]?.[this.lang] ?? text;
  }
}

const isLang = (x: string | null): x is Lang => x === 'en' || x === 'sl' || x === 'sr' || x === 'sk';

/** Language from `?lang=`, else the saved choice, else the browser's, else English. */
export function initialI18n(): I18n {
  const params = new URLSearchParams(location.search);
  const fromUrl = params.get('lang');
  const saved = localStorage.getItem('boardcast.lang');
  const browser = navigator.language.slice(0, 2);
  const lang: Lang = isLang(fromUrl) ? fromUrl : isLang(saved) ? saved : isLang(browser) ? browser : 'en';
  const n = params.get('notation') ?? localStorage.getItem('boardcast.notation');
  return new I18n(lang, n === 'figurines' ? 'figurines' : 'letters');
}

export function saveI18n(i: I18n): void {
  localStorage.setItem('boardcast.lang', i.lang);
  localStorage.setItem('boardcast.notation', i.notation);
}
