// The keys and step buttons of a step player (ui/player.py), counted in the browser.
//
// Every press (→ ← Home End, or a click on First, Prev, Next, Last) moves a target step kept here, and the
// server is sent that target as an absolute step with a sequence number. Streamlit keeps only the newest
// state of a component while the server is busy, and the newest state is where all the presses lead, so a
// press that comes while the server is still drawing an earlier step is never lost: the next run draws the
// latest target. The server sends back, with the step it drew, the sequence number of the last target it
// applied (data.seq); until that has caught up with ours, a further press counts from our target, not from
// the step on screen. Space (Play and Pause) is left to the Play button's own Streamlit shortcut.
//
// data: {id, step, n, seq, keys, buttons}: the player's name, the step drawn, the number of steps, the last
// sequence number applied, whether this player answers the keys, and the CSS class of each step button.

const MOVES = { ArrowRight: "next", ArrowLeft: "prev", Home: "first", End: "last" };
const TYPING = new Set(["INPUT", "TEXTAREA", "SELECT"]);
const OWN_KEYS = '[role="grid"],[role="slider"],[role="listbox"],[role="menu"],[role="tablist"],[data-testid="stDataFrame"]';

// Keys meant for what has the focus: typing in a text box, or moving in a table, slider, list or menu.
function elsewhere(event) {
  const target = event.composedPath ? event.composedPath()[0] : event.target;
  if (!target || !target.tagName) return false;
  return TYPING.has(target.tagName) || target.isContentEditable || !!(target.closest && target.closest(OWN_KEYS));
}

function move(player, name) {
  const { data } = player;
  const pending = player.sent > data.seq;
  const from = pending ? player.target : data.step;
  const to = { first: 1, prev: from - 1, next: from + 1, last: data.n }[name];
  player.target = Math.max(1, Math.min(data.n, to));
  window.bpePlayerSeq = (window.bpePlayerSeq || 0) + 1; // one counter per tab: a sequence number is never reused
  player.sent = window.bpePlayerSeq;
  player.send("request", { step: player.target, seq: player.sent });
}

function onKey(player, event) {
  const name = MOVES[event.key];
  if (!name || !player.data.keys || event.defaultPrevented || elsewhere(event)) return;
  if (event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) return;
  event.preventDefault();
  event.stopImmediatePropagation(); // the buttons' own Streamlit shortcuts would press once more
  move(player, name);
}

function onClick(player, event) {
  if (event.button !== 0 || !event.target || !event.target.closest) return;
  for (const [name, cls] of Object.entries(player.data.buttons)) {
    const button = event.target.closest(`.${cls} button`);
    if (button && !button.disabled) {
      event.preventDefault();
      event.stopImmediatePropagation();
      move(player, name);
      return;
    }
  }
}

export default function ({ data, setStateValue }) {
  const players = (window.bpePlayers ??= {});
  let player = players[data.id];
  if (!player) {
    player = players[data.id] = { sent: 0, target: data.step };
    player.onKey = (event) => onKey(player, event);
    player.onClick = (event) => onClick(player, event);
    window.addEventListener("keydown", player.onKey, true);
    window.addEventListener("click", player.onClick, true);
  }
  player.data = data;
  player.send = setStateValue;
  window.bpePlayerSeq = Math.max(window.bpePlayerSeq || 0, data.seq); // a server that outlived this tab's counter
  return () => {
    if (players[data.id] !== player) return;
    window.removeEventListener("keydown", player.onKey, true);
    window.removeEventListener("click", player.onClick, true);
    delete players[data.id];
  };
}
