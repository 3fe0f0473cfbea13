import type { Lang } from './i18n.ts';

// The replay page's texts (en/sl/sr/sk), beside the viewer's main table (i18n.ts).

const TEXT = {
  replay: { en: 'Replay', sl: 'Ponovni ogled', sr: 'Ponovni pregled', sk: 'Prehrávanie' },
  round: { en: 'round', sl: 'kolo', sr: 'kolo', sk: 'kolo' },
  table: { en: 'table', sl: 'miza', sr: 'sto', sk: 'stôl' },
  laws: { en: 'FIDE Laws', sl: 'Pravila FIDE', sr: 'Pravila FIDE', sk: 'Pravidlá FIDE' },
  incidents: { en: 'Incidents', sl: 'Nepravilnosti', sr: 'Nepravilnosti', sk: 'Nezrovnalosti' },
  noIncidents: { en: 'No incidents', sl: 'Ni nepravilnosti', sr: 'Nema nepravilnosti', sk: 'Žiadne nezrovnalosti' },
  article: { en: 'Art.', sl: 'čl.', sr: 'čl.', sk: 'čl.' },
  consequence: { en: 'consequence', sl: 'posledica', sr: 'posledica', sk: 'dôsledok' },
  goTo: { en: 'go to step', sl: 'pojdi na korak', sr: 'idi na korak', sk: 'prejsť na krok' },
  inReplay: { en: 'in the replay', sl: 'v ponovnem ogledu', sr: 'u ponovnom pregledu', sk: 'v prehrávaní' },
  sensors: { en: 'Board sensors', sl: 'Senzorji deske', sr: 'Senzori table', sk: 'Senzory šachovnice' },
  engine: { en: 'Engine position', sl: 'Položaj programa', sr: 'Pozicija programa', sk: 'Pozícia programu' },
  step: { en: 'step', sl: 'korak', sr: 'korak', sk: 'krok' },
  steps: { en: 'steps', sl: 'koraki', sr: 'koraci', sk: 'kroky' },
  first: { en: 'First step', sl: 'Prvi korak', sr: 'Prvi korak', sk: 'Prvý krok' },
  last: { en: 'Last step', sl: 'Zadnji korak', sr: 'Poslednji korak', sk: 'Posledný krok' },
  prevEvent: { en: 'Previous event (←)', sl: 'Prejšnji dogodek (←)', sr: 'Prethodni događaj (←)', sk: 'Predchádzajúca udalosť (←)' },
  nextEvent: { en: 'Next event (→)', sl: 'Naslednji dogodek (→)', sr: 'Sledeći događaj (→)', sk: 'Nasledujúca udalosť (→)' },
  prevMove: { en: 'Previous move (Shift+←)', sl: 'Prejšnja poteza (Shift+←)', sr: 'Prethodni potez (Shift+←)', sk: 'Predchádzajúci ťah (Shift+←)' },
  nextMove: { en: 'Next move (Shift+→)', sl: 'Naslednja poteza (Shift+→)', sr: 'Sledeći potez (Shift+→)', sk: 'Nasledujúci ťah (Shift+→)' },
  nextIncident: { en: 'Next incident (N)', sl: 'Naslednja nepravilnost (N)', sr: 'Sledeća nepravilnost (N)', sk: 'Ďalšia nezrovnalosť (N)' },
  agree: { en: 'Board and engine agree', sl: 'Deska in program se ujemata', sr: 'Tabla i program se slažu', sk: 'Šachovnica a program sa zhodujú' },
  differ: { en: 'Differing squares', sl: 'Različna polja', sr: 'Različita polja', sk: 'Odlišné polia' },
  noClock: { en: 'No clock reading yet', sl: 'Še ni odčitka ure', sr: 'Još nema očitavanja sata', sk: 'Zatiaľ žiadny údaj hodín' },
  decision: { en: 'Arbiter decision', sl: 'Odločitev sodnika', sr: 'Odluka sudije', sk: 'Rozhodnutie rozhodcu' },
  amendments: { en: 'Decisions (audit trail)', sl: 'Odločitve (revizijska sled)', sr: 'Odluke (revizijski trag)', sk: 'Rozhodnutia (auditný záznam)' },
  noAmendments: { en: 'No decision recorded', sl: 'Ni zabeleženih odločitev', sr: 'Nema zabeleženih odluka', sk: 'Žiadne zaznamenané rozhodnutie' },
  undone: { en: 'undone', sl: 'preklicano', sr: 'poništeno', sk: 'zrušené' },
  reason: { en: 'reason', sl: 'razlog', sr: 'razlog', sk: 'dôvod' },
  decisionsTaken: { en: 'Decisions taken', sl: 'Sprejete odločitve', sr: 'Donete odluke', sk: 'Prijaté rozhodnutia' },
  noDecisions: { en: 'No decision in this span', sl: 'V tem razponu ni odločitev', sr: 'Nema odluka u ovom rasponu', sk: 'V tomto rozsahu žiadne rozhodnutie' },
  moves: { en: 'Moves', sl: 'Poteze', sr: 'Potezi', sk: 'Ťahy' },
  report: { en: 'Dispute report', sl: 'Poročilo o sporu', sr: 'Izveštaj o sporu', sk: 'Správa o spore' },
  from: { en: 'from step', sl: 'od koraka', sr: 'od koraka', sk: 'od kroku' },
  to: { en: 'to step', sl: 'do koraka', sr: 'do koraka', sk: 'po krok' },
  here: { en: 'this step', sl: 'ta korak', sr: 'ovaj korak', sk: 'tento krok' },
  printReport: { en: 'Printable report', sl: 'Poročilo za tisk', sr: 'Izveštaj za štampu', sk: 'Správa na tlač' },
  positions: { en: 'Positions', sl: 'Položaji', sr: 'Pozicije', sk: 'Pozície' },
  events: { en: 'Events', sl: 'Dogodki', sr: 'Događaji', sk: 'Udalosti' },
  sensorsSaw: { en: 'the sensors saw', sl: 'senzorji so zaznali', sr: 'senzori su videli', sk: 'senzory zaznamenali' },
  engineRead: { en: "the engine's reading", sl: 'branje programa', sr: 'tumačenje programa', sk: 'výklad programu' },
  unreachable: { en: 'The server cannot be reached', sl: 'Strežnik ni dosegljiv', sr: 'Server nije dostupan', sk: 'Server je nedostupný' },
} as const satisfies Record<string, Record<Lang, string>>;

export type ReplayKey = keyof typeof TEXT;

export function replayText(lang: Lang, key: ReplayKey): string {
  return TEXT[key][lang];
}
