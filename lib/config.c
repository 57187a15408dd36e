/* The configuration schema and everything keyed by it: defaults, value
 * parsing and validation, copy/compare/free, -o overrides and the
 * canonical printer.  The YAML walk is in config_yaml.c, the generated
 * documentation in config_doc.c.  Adding a key means one line in
 * cfg_keys[] and a field in struct config; nothing else. */
#include "lib/config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lib/config_priv.h"
#include "lib/listen.h"
#include "lib/log.h"
#include "lib/qos.h"

static const struct cfg_enum unicast_names[] = {
	{ "minhop", CFG_UCAST_MINHOP },
	{ "updown", CFG_UCAST_UPDOWN },
	{ "ftree", CFG_UCAST_FTREE },
	{ "layered", CFG_UCAST_LAYERED },
	{ 0 }
};
static const struct cfg_enum direction_names[] = {
	{ "bfs", CFG_UPDN_BFS }, { "dfs", CFG_UPDN_DFS }, { 0 }
};
const struct cfg_enum cfg_bool_names[] = {
	{ "true", 1 }, { "false", 0 }, { "on", 1 }, { "off", 0 },
	{ "yes", 1 }, { "no", 0 }, { 0 }
};
static const struct cfg_enum pg_alg_names[] = {
	{ "random", CFG_PG_RANDOM }, { "least-loaded", CFG_PG_LEAST_LOADED },
	{ "random-least-loaded", CFG_PG_RANDOM_LEAST_LOADED }, { 0 }
};
static const struct cfg_enum engine_names[] = {
	{ "mr4lms", CFG_MC_MR4LMS }, { "fulb", CFG_MC_FULB },
	{ "minhop", CFG_MC_MINHOP }, { "sssp", CFG_MC_SSSP }, { 0 }
};
static const struct cfg_enum merge_names[] = {
	{ "extend", CFG_MERGE_EXTEND }, { "rebuild", CFG_MERGE_REBUILD }, { 0 }
};
/* The dump files of the dumps key (docs/design.md §4.4); the list's items
 * must be among them, the values are unused. */
static const struct cfg_enum dump_names[] = {
	{ "subnet", 0 }, { "lfts", 1 }, { "fdbs", 2 }, { "mfts", 3 },
	{ "mcgroups", 4 }, { "counters", 5 }, { 0 }
};
static const struct cfg_enum health_policy_names[] = {
	{ "report", CFG_HEALTH_REPORT }, { "isolate", CFG_HEALTH_ISOLATE },
	{ "disable", CFG_HEALTH_DISABLE }, { 0 }
};
static const struct cfg_enum mkey_mode_names[] = {
	{ "off", CFG_MKEY_OFF }, { "fixed", CFG_MKEY_FIXED },
	{ "per-port", CFG_MKEY_PER_PORT }, { 0 }
};
static const struct cfg_enum proxy_names[] = {
	{ "partition", CFG_PROXY_PARTITION }, { "trusted", CFG_PROXY_TRUSTED },
	{ 0 }
};
/* The OperationalVLs the IBA defines, as numbers of data VLs. */
static const struct cfg_enum max_vls_names[] = {
	{ "1", 1 }, { "2", 2 }, { "4", 4 }, { "8", 8 }, { "15", 15 }, { 0 }
};
static const struct cfg_enum log_names[] = {
	{ "error", LOG_LVL_ERR },   { "warn", LOG_LVL_WARN },
	{ "notice", LOG_LVL_NOTICE }, { "info", LOG_LVL_INFO },
	{ "debug", LOG_LVL_DEBUG }, { 0 }
};

#define OFF(f) offsetof(struct config, f)
#define DAY_MS 86400000u

/* The mad.* defaults are measured (tests/bench/mad_window.sh, ibsim with a
 * 1,008-host fat tree): DR Gets/s peak at a window of 64 and ibsim stalls
 * between 256 and 384 outstanding; LFT programming is fastest with 16 per
 * switch; timeouts of 20 ms and more cause no retries, 200 ms is OpenSM's. */
/* Entries give the fields they need: item and flags only where used. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const struct cfg_key cfg_keys[] = {
	{ "port.guid", CFG_GUID, OFF(port_guid), "0", 0, 0, NULL,
	  "GUID of the local port ibsmd runs on (hexadecimal). 0 chooses the "
	  "port by port.ca and port.num." },
	{ "port.ca", CFG_STRING, OFF(port_ca), "", 0, 63, NULL,
	  "Name of the local CA (as in /sys/class/infiniband, e.g. mlx5_0). "
	  "Empty: the first CA with an active InfiniBand port; Ethernet "
	  "(RoCE) ports and SM-disabled plane ports are never chosen." },
	{ "port.num", CFG_U32, OFF(port_num), "0", 0, 254, NULL,
	  "Port number on that CA. 0: its first active InfiniBand port." },
	{ "routing.unicast", CFG_ENUM, OFF(routing_unicast), "ftree", 0, 0,
	  unicast_names,
	  "Unicast routing engine: ftree (on a fat tree of any depth, full, "
	  "pruned or with links or switches missing: shortest paths laid "
	  "in the hosts' cabling order so shift permutations do not "
	  "congest, written to ftree-ca-order.dump; elsewhere as minhop), "
	  "minhop (shortest paths, balanced per port and link) or updown "
	  "(up*/down*, deadlock-free on any topology; on a fat tree with "
	  "the top level as roots, host routes as ftree's) or layered "
	  "(shortest paths made deadlock-free over up*/down* layers on "
	  "virtual lanes: each pair's layer is the SL its PathRecord "
	  "answers, SL2VL tables map it to its VL; see "
	  "routing.layered.max_vls)." },
	{ "routing.updown.roots", CFG_LIST, OFF(routing_updown_roots), "", 0,
	  64, NULL,
	  "Root switches for updown, as node GUIDs or NodeDescriptions. "
	  "Empty: chosen automatically (the top of the fabric)." },
	{ "routing.updown.direction", CFG_ENUM, OFF(routing_updown_direction),
	  "bfs", 0, 0, direction_names,
	  "How updown orients links: bfs (by BFS rank from the roots, then "
	  "GUID) or dfs (depth-first, Sancho et al.)." },
	{ "routing.layered.max_vls", CFG_U32, OFF(routing_layered_max_vls),
	  "0", 0, 15, NULL,
	  "Layers (VLs, and the SLs that select them) the layered engine may "
	  "spread unicast paths over. 0: as many as every port's VLCap and "
	  "qos.max_vls allow, less the one VL multicast keeps to itself "
	  "when paths need more than one layer (7 under ibsim's 8 VLs; 8 "
	  "offline, where a topology file gives no VLCap). 1 is plain "
	  "up*/down*. Paths that need one layer only (any fat tree) stay "
	  "on SL0 and no SL2VL table is written." },
	{ "routing.threads", CFG_U32, OFF(routing_threads), "0", 0, 1024,
	  NULL, "Threads for routing computations. 0: one per online CPU." },
	{ "routing.port_groups.enable", CFG_ENUM,
	  OFF(routing_port_groups_enable), "true", 0, 0, cfg_bool_names,
	  "Program port groups for adaptive routing on the switches that "
	  "implement them (PortGroupInfo answered): per destination LID the "
	  "equally good legal ports, the LFT port among them. Turned off by "
	  "a reload, ibsmd stops programming them but does not yet disable "
	  "or clear the tables the switches already hold." },
	{ "routing.port_groups.cap", CFG_U32, OFF(routing_port_groups_cap),
	  "0", 0, 255, NULL,
	  "Most groups per switch. 0: the switch's PortGroupCap; a switch "
	  "never gets more than its PortGroupCap." },
	{ "routing.port_groups.algorithm", CFG_ENUM,
	  OFF(routing_port_groups_algorithm), "random-least-loaded", 0, 0,
	  pg_alg_names,
	  "How a switch picks a port of the group when the LFT port is "
	  "congested: random, least-loaded or random-least-loaded (random "
	  "among the least loaded)." },
	{ "routing.port_groups.threshold", CFG_U32,
	  OFF(routing_port_groups_threshold), "0", 0, 255, NULL,
	  "Congestion threshold written to PortGroupInfo (its meaning is the "
	  "switch's)." },
	{ "multicast.engine", CFG_ENUM, OFF(multicast_engine), "mr4lms", 0,
	  0, engine_names,
	  "Multicast routing engine: mr4lms (for a limited MFT size), fulb, "
	  "minhop or sssp." },
	{ "multicast.mft_size", CFG_U32, OFF(multicast_mft_size), "0", 0,
	  16383, NULL,
	  "Number of multicast colors (MLIDs 0xC000 + color) to use. 0: the "
	  "smallest MulticastFDBCap among the switches. With mr4lms, a group "
	  "whose member switches are exactly those of a tree may share that "
	  "tree, and so its MLID, once 40% of the colors of one of its "
	  "switches are in use (the daemon cannot know the groups to come and "
	  "budgets three for each tree through a switch); groups on the same "
	  "hosts share first. Groups are merged onto other trees only when no "
	  "color is free on their switches." },
	{ "multicast.merge", CFG_ENUM, OFF(multicast_merge), "extend", 0, 0,
	  merge_names,
	  "When groups must share a color, extend the existing trees or "
	  "rebuild them for the merged group." },
	{ "multicast.switch_threshold", CFG_U32,
	  OFF(multicast_switch_threshold), "20", 1, 1000000, NULL,
	  "MR4LMS starts building trees then coloring them (FBTC); after a "
	  "coloring failure it colors first (FCTB) until FCTB has succeeded "
	  "this many times in a row without merging, then returns to FBTC." },
	{ "multicast.join_timeout_ms", CFG_U32,
	  OFF(multicast_join_timeout_ms), "30000", 1, DAY_MS, NULL,
	  "A collective group not complete this long after its first join is "
	  "destroyed (milliseconds)." },
	{ "multicast.leave_timeout_ms", CFG_U32,
	  OFF(multicast_leave_timeout_ms), "30000", 1, DAY_MS, NULL,
	  "A collective group whose members have not all left this long "
	  "after the first leave is destroyed (milliseconds)." },
	{ "multicast.join_rate", CFG_U32, OFF(multicast_join_rate), "1000", 1,
	  1000000, NULL,
	  "Multicast joins and leaves (MCMemberRecord Set/Delete) one port "
	  "may send per second on average; more are answered BUSY so that "
	  "other ports' joins keep their latency." },
	{ "multicast.join_burst", CFG_U32, OFF(multicast_join_burst), "2000",
	  1, 1000000, NULL,
	  "Joins and leaves one port may send at once above "
	  "multicast.join_rate." },
	{ "qos.enable", CFG_ENUM, OFF(qos_enable), "false", 0, 0, cfg_bool_names,
	  "Program the SL2VL and VL arbitration tables of every port from "
	  "the qos keys (only the blocks that differ from what was last "
	  "written). false: leave them as the ports hold them, as OpenSM "
	  "does by default; OperationalVLs are set either way." },
	{ "qos.max_vls", CFG_ENUM, OFF(qos_max_vls), "15", 0, 0, max_vls_names,
	  "Most data VLs a link runs: OperationalVLs is the least of this "
	  "and both ends' VLCap (1, 2, 4, 8 or 15)." },
	{ "qos.high_limit", CFG_U32, OFF(qos_high_limit), "0", 0, 255, NULL,
	  "PortInfo VLHighLimit: high-priority bytes (in 4 KiB units) sent "
	  "before a low-priority packet gets a turn; 0 lets one packet "
	  "through, 255 is unlimited." },
	{ "qos.sl2vl", CFG_LIST, OFF(qos_sl2vl),
	  "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7", 0, 8, NULL,
	  "The VL of each SL, SL0 first (16 VLs, 0 to 14). A port running n "
	  "VLs sends SL s on VL (this mod n); an SL whose VL the port's "
	  "arbitration tables give no weight goes to the lowest VL they "
	  "serve." },
	{ "qos.vlarb_high", CFG_LIST, OFF(qos_vlarb_high),
	  "0:4,1:0,2:0,3:0,4:0,5:0,6:0,7:0,8:0,9:0,10:0,11:0,12:0,13:0,14:0",
	  0, 16, NULL,
	  "High-priority VL arbitration table, VL:WEIGHT entries in order "
	  "(weight in 64-byte units, 0 skips the entry); a port holds its "
	  "VLArbitrationHighCap first entries." },
	{ "qos.vlarb_low", CFG_LIST, OFF(qos_vlarb_low),
	  "0:0,1:4,2:4,3:4,4:4,5:4,6:4,7:4,8:4,9:4,10:4,11:4,12:4,13:4,14:4",
	  0, 16, NULL,
	  "Low-priority VL arbitration table, as qos.vlarb_high. Every VL "
	  "qos.sl2vl uses needs a nonzero weight in one of the two "
	  "tables." },
	{ "qos.default_sl", CFG_U32, OFF(qos_default_sl), "0", 0, 15, NULL,
	  "SL of PathRecords that no qos.classes rule matches (and whose "
	  "partition gives no SL)." },
	{ "qos.classes", CFG_LIST, OFF(qos_classes), "", 0, 200, NULL,
	  "PathRecord SL by QoS class, first match wins: each rule is "
	  "matchers and an SL, e.g. \"service-id 0x10000-0x1ffff sl 1\", "
	  "\"pkey 0x8001 sl 2\", \"qos-class 3 sl 4\" (ranges inclusive; "
	  "a rule with several matchers needs all of them; a request that "
	  "does not give a field does not match on it)." },
	{ "sm.priority", CFG_U32, OFF(sm_priority), "0", 0, 15, NULL,
	  "SMInfo priority. Among SMs starting together the highest (then "
	  "the lowest port GUID) becomes master; a running master hands the "
	  "subnet over to a standby that outranks it." },
	{ "sm.sweep_interval_ms", CFG_U32, OFF(sm_sweep_interval_ms),
	  "10000", 0, DAY_MS, NULL,
	  "Time between periodic sweeps (milliseconds). 0: sweep only at "
	  "start, on traps and on request." },
	{ "sm.lmc", CFG_U32, OFF(sm_lmc), "0", 0, 7, NULL,
	  "LID mask control: each CA port gets 2^lmc LIDs." },
	{ "sm.poll_interval_ms", CFG_U32, OFF(sm_poll_interval_ms), "500", 50,
	  60000, NULL,
	  "A standby asks the master for its SMInfo this often "
	  "(milliseconds)." },
	{ "sm.poll_retries", CFG_U32, OFF(sm_poll_retries), "3", 1, 100, NULL,
	  "Polls in a row the master may miss before a standby takes the "
	  "subnet over; with the default interval a dead master is replaced "
	  "after 1.5 to 2 seconds." },
	{ "sm.sm_key", CFG_GUID, OFF(sm_sm_key), "0", 0, 0, NULL,
	  "SM_Key: SMInfo Sets (handover, standby, disable) carrying another "
	  "key are refused, and only requesters that know it read it back. "
	  "SA requests carrying it are trusted (P_KeyTableRecords, other "
	  "ports' records); SA requests carrying another nonzero key are "
	  "dropped. 0: none, nobody is trusted." },
	{ "sm.elevated_priority", CFG_U32, OFF(sm_elevated_priority), "0", 0,
	  15, NULL,
	  "Priority announced while master (sticky mastership): a master "
	  "keeps the subnet when an SM of higher configured priority comes "
	  "back, so a flapping node cannot move it back and forth. 0: off." },
	{ "sm.trap_interval_ms", CFG_U32, OFF(sm_trap_interval_ms), "1000",
	  10, DAY_MS, NULL,
	  "Trap throttle interval (milliseconds): traps start at most one "
	  "heavy sweep per interval, and a port's traps over sm.trap_limit "
	  "in one interval are repressed, counted and ignored." },
	{ "sm.trap_limit", CFG_U32, OFF(sm_trap_limit), "5", 1, 1000000,
	  NULL,
	  "Traps of one port acted on per sm.trap_interval_ms; every trap is "
	  "answered with TrapRepress all the same." },
	{ "sm.incremental", CFG_ENUM, OFF(sm_incremental), "true", 0, 0,
	  cfg_bool_names,
	  "When a light sweep sees switches report a port state change, "
	  "probe only their ports: if links of the model went down, route "
	  "a copy of the model without them and send what differs, with no "
	  "rediscovery. Anything else (a new link, a silent switch, a node "
	  "cut off) is a heavy sweep, as is every sweep when false." },
	{ "m_key.mode", CFG_ENUM, OFF(m_key_mode), "off", 0, 0,
	  mkey_mode_names,
	  "M_Key protection of the ports: off (ibsmd sets no M_Key; SMPs "
	  "carry the keys state_dir/guid2mkey lists, so ports keyed before "
	  "still answer), fixed (m_key.key on every CA port and switch), or "
	  "per-port (a key per port derived from state_dir/mkey.secret, made "
	  "at first use). Keys set are kept in state_dir/guid2mkey (OpenSM's "
	  "format) and read at start." },
	{ "m_key.key", CFG_GUID, OFF(m_key_key), "0", 0, 0, NULL,
	  "The M_Key of m_key.mode fixed (hexadecimal, not 0)." },
	{ "m_key.protect", CFG_U32, OFF(m_key_protect), "1", 0, 3, NULL,
	  "M_KeyProtectBits set with the key: 0 anyone may read the key with "
	  "a PortInfo Get, 1 Gets work but hide the key, 2 and 3 Gets without "
	  "the key are refused too (smpquery and ibnetdiscover then see "
	  "nothing)." },
	{ "m_key.lease_s", CFG_U32, OFF(m_key_lease_s), "60", 0, 65535, NULL,
	  "M_KeyLeasePeriod (seconds): after an SMP with a wrong key, a port "
	  "not reached with the right one within this time drops its "
	  "protection (the key becomes readable), so a fabric whose SM lost "
	  "its keys can be managed again. 0: never; such ports then answer "
	  "only to their key until power cycled." },
	{ "mad.window", CFG_U32, OFF(mad_window), "64", 1, 1024, NULL,
	  "Most SMPs outstanding at once (ibsim stalls between 256 and 384; "
	  "64 measured fastest)." },
	{ "mad.window_per_node", CFG_U32, OFF(mad_window_per_node), "16", 1,
	  64, NULL, "Most SMPs outstanding to one node at once." },
	{ "mad.timeout_ms", CFG_U32, OFF(mad_timeout_ms), "200", 1, 60000,
	  NULL, "Time to wait for an SMP response before retrying "
		"(milliseconds)." },
	{ "mad.retries", CFG_U32, OFF(mad_retries), "3", 0, 100, NULL,
	  "Retries of an SMP before its node is taken as gone." },
	{ "mad.answer_window", CFG_U32, OFF(mad_answer_window), "64", 1,
	  4096, NULL,
	  "Room for SA answers beside mad.window: at most mad.window + "
	  "mad.answer_window MADs handed to the port and not yet known to "
	  "have left it, SMPs, SA queries and answers together. The loop "
	  "never waits in a send; what finds no room waits in memory "
	  "(ibsim stalls for good near 300)." },
	{ "sa.service_lease_max_s", CFG_U32, OFF(sa_service_lease_max_s), "0",
	  0, 0xFFFFFFFFu, NULL,
	  "Longest ServiceRecord lease granted (seconds); longer requests, "
	  "infinite ones included, are cut to it. 0: no limit." },
	{ "sa.proxy_join", CFG_ENUM, OFF(sa_proxy_join), "partition", 0, 0,
	  proxy_names,
	  "Who may join or leave a multicast group for another port (a "
	  "proxy join): partition (any port of the group's partition, as the "
	  "IBA allows; every port holds the default partition) or trusted "
	  "(only requesters carrying sm.sm_key). A member that joined for "
	  "itself is left only by itself or a trusted requester; "
	  "ServiceRecords are set and deleted only for the requester's own "
	  "port unless it is trusted." },
	{ "perfmgr.enable", CFG_ENUM, OFF(perfmgr_enable), "false", 0, 0,
	  cfg_bool_names,
	  "Performance manager: read every linked port's PortCounters (and "
	  "PortCountersExtended where the node has them) every "
	  "perfmgr.interval_ms, keep 64-bit totals across counter wraps, "
	  "clears and restarts (state_dir/port_counters.state), and judge "
	  "the links by health.*. Its MADs wait while a sweep runs." },
	{ "perfmgr.interval_ms", CFG_U32, OFF(perfmgr_interval_ms), "60000",
	  1000, DAY_MS, NULL,
	  "Time between two readings of every port's counters "
	  "(milliseconds); the reads of one round are spread over three "
	  "quarters of it." },
	{ "health.thresholds.symbol_errors", CFG_U32,
	  OFF(health_thresholds_symbol_errors), "100", 0, 0xFFFFFFFFu, NULL,
	  "A link whose SymbolErrorCounter grows by more than this in one "
	  "perfmgr interval, at either end, is unhealthy. 0: not judged "
	  "(the same for every health.thresholds key)." },
	{ "health.thresholds.link_error_recovery", CFG_U32,
	  OFF(health_thresholds_link_error_recovery), "10", 0, 0xFFFFFFFFu,
	  NULL, "LinkErrorRecoveryCounter growth per interval." },
	{ "health.thresholds.link_downed", CFG_U32,
	  OFF(health_thresholds_link_downed), "5", 0, 0xFFFFFFFFu, NULL,
	  "LinkDownedCounter growth per interval." },
	{ "health.thresholds.rcv_errors", CFG_U32,
	  OFF(health_thresholds_rcv_errors), "100", 0, 0xFFFFFFFFu, NULL,
	  "PortRcvErrors growth per interval." },
	{ "health.thresholds.local_link_integrity", CFG_U32,
	  OFF(health_thresholds_local_link_integrity), "10", 0, 0xFFFFFFFFu,
	  NULL, "LocalLinkIntegrityErrors growth per interval." },
	{ "health.thresholds.excessive_buffer_overrun", CFG_U32,
	  OFF(health_thresholds_excessive_buffer_overrun), "10", 0,
	  0xFFFFFFFFu, NULL,
	  "ExcessiveBufferOverrunErrors growth per interval." },
	{ "health.thresholds.xmit_discards", CFG_U32,
	  OFF(health_thresholds_xmit_discards), "1000", 0, 0xFFFFFFFFu, NULL,
	  "PortXmitDiscards growth per interval." },
	{ "health.flap_limit", CFG_U32, OFF(health_flap_limit), "5", 0, 1000,
	  NULL,
	  "A link that goes down more than this many times (each down and "
	  "up again is one flap) within health.flap_window_s is unhealthy. "
	  "0: flaps are not counted." },
	{ "health.flap_window_s", CFG_U32, OFF(health_flap_window_s), "600",
	  1, 86400, NULL, "The window of health.flap_limit (seconds)." },
	{ "health.policy", CFG_ENUM, OFF(health_policy), "report", 0, 0,
	  health_policy_names,
	  "What an unhealthy link gets: report (logged once per episode, "
	  "listed by ibsmctl health), isolate (routed around: no LFT, MFT "
	  "or port-group entry uses it while it stays up and its counters "
	  "are still read) or disable (its port set Disabled, and routed "
	  "around). A link whose loss would cut a node off is only "
	  "reported." },
	{ "health.recover_s", CFG_U32, OFF(health_recover_s), "3600", 0,
	  0xFFFFFFFFu, NULL,
	  "An unhealthy link quiet this long (no threshold crossed, no "
	  "flap) is healthy again, and an isolated one is routed again "
	  "(seconds). A disabled port comes back only with ibsmctl health "
	  "clear. 0: only with ibsmctl health clear." },
	{ "state_dir", CFG_PATH, OFF(state_dir), "/var/lib/ibsmd", 0, 255,
	  NULL, "Directory for guid2lid, the state files and the dump files." },
	{ "dumps", CFG_LIST, OFF(dumps), "subnet,mcgroups", 0, 16,
	  dump_names,
	  "Dump files written to state_dir after each heavy sweep (after "
	  "the subnet is up, on a helper thread) and on multicast changes: "
	  "subnet (subnet.lst), lfts (lfts.dump, and path-sl.dump with "
	  "routing.unicast layered), fdbs, mfts (mfts.dump), "
	  "mcgroups (mcgroups.dump), counters (port_counters.dump, after "
	  "each perfmgr round). lfts and fdbs grow with switches times "
	  "LIDs (2.3 GB at 16,000 hosts), so they are written only when "
	  "listed or on ibsmctl dump; guid2lid and the state files are "
	  "always written." },
	{ "control_socket", CFG_PATH, OFF(control_socket),
	  "/run/ibsmd/ibsmd.sock", 0, 107, NULL,
	  "Unix socket ibsmctl talks to." },
	{ "control.max_connections", CFG_U32, OFF(control_max_connections),
	  "64", 1, 65536, NULL,
	  "Most control-socket connections open at once; a new one beyond "
	  "closes the one idle longest." },
	{ "control.idle_timeout_ms", CFG_U32, OFF(control_idle_timeout_ms),
	  "30000", 100, DAY_MS, NULL,
	  "A control-socket connection that moves no byte either way this "
	  "long is closed (milliseconds)." },
	{ "control.max_output", CFG_U32, OFF(control_max_output), "4194304",
	  4096, 1u << 30, NULL,
	  "Answer bytes queued for one control-socket client before its "
	  "further requests wait; a single answer longer than this is "
	  "refused with an error line." },
	{ "metrics.listen", CFG_STRING, OFF(metrics_listen), "", 0, 63, NULL,
	  "Address and port of the Prometheus endpoint, served at /metrics "
	  "(ADDRESS:PORT with a numeric IPv4 address, [ADDRESS]:PORT for "
	  "IPv6; e.g. 127.0.0.1:9871). Empty: no endpoint. The page has no "
	  "access control: listen on the loopback or a management network "
	  "only." },
	{ "topology.expected", CFG_STRING, OFF(topology_expected), "", 0, 255,
	  NULL,
	  "The cabling as planned, an ibnetdiscover output or ibsim net file "
	  "(absolute path). Each heavy sweep compares the fabric with it and "
	  "logs missing, extra and miswired links by name (ibsmctl topology "
	  "diff). Empty: no comparison." },
	{ "topology.enforce", CFG_ENUM, OFF(topology_enforce), "false", 0, 0,
	  cfg_bool_names,
	  "With topology.expected: a miswired or unexpected link is not "
	  "armed or activated and carries no route; its ports stay in "
	  "Initialize until the cabling matches the file." },
	{ "log.level", CFG_ENUM, OFF(log_level), "notice", 0, 0, log_names,
	  "Least important messages logged: error, warn, notice, info or "
	  "debug." },
	/* The item keys and checks: config_partitions.c. */
	{ "partitions", CFG_TABLE, OFF(partitions),
	  "[{name: default, pkey: 0x7fff, ipoib: true, members: all}]", 0, 128,
	  NULL,
	  "Partitions (P_Keys): which ports may talk to which. Each is a "
	  "mapping of the keys below; a port is a full member of the "
	  "partitions listing it under members, a limited member of those "
	  "listing it under limited (limited members talk only to full "
	  "members). Every port is at least a limited member of the default "
	  "partition 0x7fff, so that it can reach the SA, and the SM's port "
	  "a full member. A name or GUID given beside all, hosts or switches "
	  "in the other list wins; else full membership wins.",
	  &cfg_partition_item, 0 },
};
#pragma GCC diagnostic pop

#define N_KEYS (sizeof(cfg_keys) / sizeof(*cfg_keys))

const struct cfg_key *config_schema(size_t *n)
{
	*n = N_KEYS;
	return cfg_keys;
}

const struct cfg_key *cfg_find(const char *key)
{
	for (size_t i = 0; i < N_KEYS; i++)
		if (strcmp(cfg_keys[i].key, key) == 0)
			return &cfg_keys[i];
	return NULL;
}

bool cfg_is_section(const char *path)
{
	size_t n = strlen(path);

	for (size_t i = 0; i < N_KEYS; i++)
		if (strncmp(cfg_keys[i].key, path, n) == 0 &&
		    cfg_keys[i].key[n] == '.')
			return true;
	return false;
}

size_t cfg_index(const struct cfg_key *k)
{
	return (size_t)(k - cfg_keys);
}

int cfg_err(char *err, size_t errlen, const char *where, const char *fmt,
	    ...)
{
	va_list ap;
	int n = 0;

	if (!errlen)
		return -EINVAL;
	if (where && *where)
		n = snprintf(err, errlen, "%s: ", where);
	if (n < 0 || (size_t)n >= errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

#define FIELD(c, k, T) ((T *)((char *)(c) + (k)->off))
#define CFIELD(c, k, T) ((const T *)((const char *)(c) + (k)->off))

static bool parse_uint(const char *s, int base, uint64_t *v)
{
	char *e;

	if (!*s || *s == '-' || *s == '+' || isspace((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &e, base);
	return !*e && !errno;
}

static int set_u32(void *c, const struct cfg_key *k, const char *s,
		   const char *where, char *err, size_t errlen)
{
	uint64_t v;

	if (!parse_uint(s, 0, &v) || (s[0] == '0' && isdigit((unsigned char)s[1])))
		return cfg_err(err, errlen, where, "%s: expected a number, got "
			       "\"%s\"", k->key, s);
	if ((v < k->min || v > k->max) && (k->flags & CFG_F_HEX))
		return cfg_err(err, errlen, where, "%s: %s is out of range "
			       "0x%04x..0x%04x", k->key, s, k->min, k->max);
	if (v < k->min || v > k->max)
		return cfg_err(err, errlen, where, "%s: %s is out of range "
			       "%u..%u", k->key, s, k->min, k->max);
	*FIELD(c, k, uint32_t) = (uint32_t)v;
	return 0;
}

/* GUIDs are hexadecimal with or without 0x, as the IB tools print them. */
static int set_guid(void *c, const struct cfg_key *k, const char *s,
		    const char *where, char *err, size_t errlen)
{
	const char *h = (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ? s + 2
								    : s;
	uint64_t v;

	if (strlen(h) > 16 || !parse_uint(h, 16, &v))
		return cfg_err(err, errlen, where, "%s: expected a GUID "
			       "(hexadecimal, e.g. 0x0002c90300a1b2c3), got "
			       "\"%s\"", k->key, s);
	*FIELD(c, k, uint64_t) = v;
	return 0;
}

static int set_string(void *c, const struct cfg_key *k,
		      const char *s, const char *where, char *err,
		      size_t errlen)
{
	char *dup;

	if (strlen(s) > k->max)
		return cfg_err(err, errlen, where, "%s: longer than %u "
			       "characters", k->key, k->max);
	if (k->type == CFG_PATH && s[0] != '/')
		return cfg_err(err, errlen, where, "%s: \"%s\" is not an "
			       "absolute path", k->key, s);
	if (!(dup = strdup(s)))
		return -ENOMEM;
	free(*FIELD(c, k, char *));
	*FIELD(c, k, char *) = dup;
	return 0;
}

/* Index of s among the names, or -1. */
static int enum_find(const struct cfg_enum *enums, const char *s)
{
	for (int i = 0; enums[i].name; i++)
		if (strcmp(enums[i].name, s) == 0)
			return i;
	return -1;
}

static int enum_err(const struct cfg_key *k, const char *s, const char *where,
		    char *err, size_t errlen)
{
	char names[256] = "";
	size_t n = 0;

	for (const struct cfg_enum *e = k->enums; e->name && n < sizeof(names);
	     e++)
		n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s",
				      n ? ", " : "", e->name);
	return cfg_err(err, errlen, where, "%s: \"%s\" is not one of %s",
		       k->key, s, names);
}

static int set_enum(void *c, const struct cfg_key *k, const char *s,
		    const char *where, char *err, size_t errlen)
{
	int i = enum_find(k->enums, s);

	if (i < 0)
		return enum_err(k, s, where, err, errlen);
	*FIELD(c, k, int) = k->enums[i].value;
	return 0;
}

int cfg_check_item(const struct cfg_key *k, const char *s, const char *where,
		   char *err, size_t errlen)
{
	if (!*s)
		return cfg_err(err, errlen, where, "%s: empty list item",
			       k->key);
	if (strlen(s) > k->max)
		return cfg_err(err, errlen, where, "%s: item \"%s\" is longer "
			       "than %u characters", k->key, s, k->max);
	if (strchr(s, ','))
		return cfg_err(err, errlen, where, "%s: item \"%s\" contains "
			       "a comma", k->key, s);
	if (k->enums && enum_find(k->enums, s) < 0)
		return enum_err(k, s, where, err, errlen);
	return 0;
}

/* Lists whose items depend on each other (or on their count) are checked
 * whole once read, by key: a side table rather than a column of cfg_keys[]
 * keeps the rows as they are. */
static const struct {
	const char *key;
	int (*check)(const struct cfg_strlist *l, uint32_t *bad, char *why,
		     size_t len);
} list_checks[] = {
	{ "qos.sl2vl", qos_check_sl2vl },
	{ "qos.vlarb_high", qos_check_vlarb },
	{ "qos.vlarb_low", qos_check_vlarb },
	{ "qos.classes", qos_check_classes },
};
#define N_LIST_CHECKS (sizeof(list_checks) / sizeof(list_checks[0]))

int cfg_check_list(const struct cfg_key *k, const struct cfg_strlist *l,
		   uint32_t *bad, char *why, size_t len)
{
	char msg[256];
	size_t i = 0;

	*bad = l->n;
	while (i < N_LIST_CHECKS && strcmp(list_checks[i].key, k->key))
		i++;
	if (i == N_LIST_CHECKS ||
	    list_checks[i].check(l, bad, msg, sizeof(msg)) == 0)
		return 0;
	snprintf(why, len, "%s: %s", k->key, msg);
	return -EINVAL;
}

void cfg_list_free(struct cfg_strlist *l)
{
	for (uint32_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

int cfg_list_push(struct cfg_strlist *l, const char *s)
{
	char **nv = realloc(l->v, (l->n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	l->v = nv;
	if (!(l->v[l->n] = strdup(s)))
		return -ENOMEM;
	l->n++;
	return 0;
}

/* -o form of a list: comma-separated, "" = empty. */
static int set_list_text(void *c, const struct cfg_key *k,
			 const char *s, const char *where, char *err,
			 size_t errlen)
{
	struct cfg_strlist nl = { 0 };
	char *copy = strdup(s), *tok, *save = NULL;
	int r = 0;

	if (!copy)
		return -ENOMEM;
	if (*s) {
		for (tok = strtok_r(copy, ",", &save); tok && !r;
		     tok = strtok_r(NULL, ",", &save))
			if (!(r = cfg_check_item(k, tok, where, err, errlen)))
				r = cfg_list_push(&nl, tok);
		if (!r && (s[strlen(s) - 1] == ',' || s[0] == ',' ||
			   strstr(s, ",,")))
			r = cfg_err(err, errlen, where, "%s: empty list item",
				    k->key);
	}
	free(copy);
	if (!r) {
		char why[300];
		uint32_t bad;
		if (cfg_check_list(k, &nl, &bad, why, sizeof(why)) < 0)
			r = cfg_err(err, errlen, where, "%s", why);
	}
	if (r) {
		cfg_list_free(&nl);
		return r;
	}
	cfg_list_free(FIELD(c, k, struct cfg_strlist));
	*FIELD(c, k, struct cfg_strlist) = nl;
	return 0;
}

int cfg_set_value(void *c, const struct cfg_key *k, const char *s,
		  const char *where, char *err, size_t errlen)
{
	switch (k->type) {
	case CFG_U32:
		return set_u32(c, k, s, where, err, errlen);
	case CFG_GUID:
		return set_guid(c, k, s, where, err, errlen);
	case CFG_STRING:
	case CFG_PATH:
		return set_string(c, k, s, where, err, errlen);
	case CFG_ENUM:
		return set_enum(c, k, s, where, err, errlen);
	case CFG_LIST:
		return set_list_text(c, k, s, where, err, errlen);
	case CFG_TABLE:
		return cfg_table_from_text(c, k, s, where, err, errlen);
	}
	return -EINVAL;
}

void cfg_table_free(struct cfg_table *t, const struct cfg_item *it)
{
	for (uint32_t i = 0; i < t->n; i++)
		cfg_keys_free(cfg_table_at(t, it, i), it->keys, it->n_keys);
	free(t->v);
	t->v = NULL;
	t->n = 0;
}

void *cfg_table_at(const struct cfg_table *t, const struct cfg_item *it,
		   uint32_t i)
{
	return (char *)t->v + (size_t)i * it->size;
}

void *cfg_table_push(struct cfg_table *t, const struct cfg_item *it)
{
	void *nv = realloc(t->v, (t->n + 1) * it->size), *item;

	if (!nv)
		return NULL;
	t->v = nv;
	item = cfg_table_at(t, it, t->n++);
	memset(item, 0, it->size);
	return item;
}

void cfg_item_name(const struct cfg_key *k, const void *item, uint32_t i,
		   char *out, size_t len)
{
	/* The first string key of an item is its name. */
	for (size_t j = 0; j < k->item->n_keys; j++) {
		const struct cfg_key *f = &k->item->keys[j];
		const char *nm = f->type == CFG_STRING ? *CFIELD(item, f, char *)
						       : NULL;
		if (f->type != CFG_STRING)
			continue;
		if (nm && *nm) {
			snprintf(out, len, "%s[%u] (%s)", k->key, i, nm);
			return;
		}
		break;
	}
	snprintf(out, len, "%s[%u]", k->key, i);
}

int cfg_table_check(const struct cfg_key *k, const struct cfg_table *t,
		    uint32_t *bad, char *msg, size_t len)
{
	char why[400] = "", item[160];
	int r;

	if (!k->item->check)
		return 0;
	r = k->item->check(t->v, t->n, bad, why, sizeof(why));
	if (r == 0)
		return 0;
	cfg_item_name(k, cfg_table_at(t, k->item, *bad), *bad, item,
		      sizeof(item));
	snprintf(msg, len, "%s: %s", item, why);
	return r;
}

void cfg_keys_free(void *base, const struct cfg_key *keys, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct cfg_key *k = &keys[i];
		if (k->type == CFG_STRING || k->type == CFG_PATH) {
			free(*FIELD(base, k, char *));
			*FIELD(base, k, char *) = NULL;
		} else if (k->type == CFG_LIST) {
			cfg_list_free(FIELD(base, k, struct cfg_strlist));
		} else if (k->type == CFG_TABLE) {
			cfg_table_free(FIELD(base, k, struct cfg_table),
				       k->item);
		}
	}
}

void config_free(struct config *c)
{
	cfg_keys_free(c, cfg_keys, N_KEYS);
}

int cfg_keys_defaults(void *base, const struct cfg_key *keys, size_t n,
		      char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		int r = keys[i].def ? cfg_set_value(base, &keys[i], keys[i].def,
						    NULL, err, errlen)
				    : 0;
		if (r)
			return r;
	}
	return 0;
}

int config_defaults(struct config *c)
{
	char err[256];
	int r;

	memset(c, 0, sizeof(*c));
	r = cfg_keys_defaults(c, cfg_keys, N_KEYS, err, sizeof(err));
	if (r) {
		/* A bad default is a bug in the table above. */
		if (r != -ENOMEM)
			log_err("config: bad built-in default: %s", err);
		config_free(c);
		return r == -ENOMEM ? r : -EINVAL;
	}
	return 0;
}

static int table_copy(struct cfg_table *dst, const struct cfg_table *src,
		      const struct cfg_item *it)
{
	int r = 0;

	dst->v = NULL;
	dst->n = 0;
	for (uint32_t i = 0; i < src->n && !r; i++) {
		void *d = cfg_table_push(dst, it);
		if (!d)
			return -ENOMEM;
		r = cfg_keys_copy(d, cfg_table_at(src, it, i), it->keys,
				  it->n_keys);
	}
	return r;
}

static int key_copy(void *dst, const void *src, const struct cfg_key *k)
{
	int r = 0;

	switch (k->type) {
	case CFG_STRING:
	case CFG_PATH: {
		const char *v = *CFIELD(src, k, char *);
		char *s = v ? strdup(v) : NULL;
		*FIELD(dst, k, char *) = s;
		return s || !v ? 0 : -ENOMEM;
	}
	case CFG_LIST: {
		const struct cfg_strlist *l = CFIELD(src, k, struct cfg_strlist);
		struct cfg_strlist *d = FIELD(dst, k, struct cfg_strlist);
		d->v = NULL;
		d->n = 0;
		for (uint32_t j = 0; j < l->n && !r; j++)
			r = cfg_list_push(d, l->v[j]);
		return r;
	}
	case CFG_TABLE:
		return table_copy(FIELD(dst, k, struct cfg_table),
				  CFIELD(src, k, struct cfg_table), k->item);
	default:
		memcpy(FIELD(dst, k, char), CFIELD(src, k, char),
		       k->type == CFG_GUID ? sizeof(uint64_t)
		       : k->type == CFG_ENUM ? sizeof(int)
					     : sizeof(uint32_t));
		return 0;
	}
}

int cfg_keys_copy(void *dst, const void *src, const struct cfg_key *keys,
		  size_t n)
{
	int r = 0;

	/* Pointers first cleared, so a failure frees only what was made. */
	for (size_t i = 0; i < n; i++) {
		const struct cfg_key *k = &keys[i];
		if (k->type == CFG_STRING || k->type == CFG_PATH)
			*FIELD(dst, k, char *) = NULL;
		else if (k->type == CFG_LIST)
			*FIELD(dst, k, struct cfg_strlist) =
			    (struct cfg_strlist){0};
		else if (k->type == CFG_TABLE)
			*FIELD(dst, k, struct cfg_table) =
			    (struct cfg_table){0};
	}
	for (size_t i = 0; i < n && !r; i++)
		r = key_copy(dst, src, &keys[i]);
	if (r)
		cfg_keys_free(dst, keys, n);
	return r;
}

int config_copy(struct config *dst, const struct config *src)
{
	*dst = *src;
	return cfg_keys_copy(dst, src, cfg_keys, N_KEYS);
}

static bool key_equal(const void *a, const void *b, const struct cfg_key *k)
{
	switch (k->type) {
	case CFG_U32:
		return *CFIELD(a, k, uint32_t) == *CFIELD(b, k, uint32_t);
	case CFG_GUID:
		return *CFIELD(a, k, uint64_t) == *CFIELD(b, k, uint64_t);
	case CFG_STRING:
	case CFG_PATH:
		return strcmp(*CFIELD(a, k, char *), *CFIELD(b, k, char *)) ==
		       0;
	case CFG_ENUM:
		return *CFIELD(a, k, int) == *CFIELD(b, k, int);
	case CFG_LIST: {
		const struct cfg_strlist *x = CFIELD(a, k, struct cfg_strlist);
		const struct cfg_strlist *y = CFIELD(b, k, struct cfg_strlist);
		if (x->n != y->n)
			return false;
		for (uint32_t i = 0; i < x->n; i++)
			if (strcmp(x->v[i], y->v[i]))
				return false;
		return true;
	}
	case CFG_TABLE: {
		const struct cfg_table *x = CFIELD(a, k, struct cfg_table);
		const struct cfg_table *y = CFIELD(b, k, struct cfg_table);
		if (x->n != y->n)
			return false;
		for (uint32_t i = 0; i < x->n; i++)
			if (!cfg_keys_equal(cfg_table_at(x, k->item, i),
					    cfg_table_at(y, k->item, i),
					    k->item->keys, k->item->n_keys))
				return false;
		return true;
	}
	}
	return false;
}

/* entry names key, or ends with '.' and is its section */
static bool key_listed(const char *entry, const char *key)
{
	size_t n = strlen(entry);

	return n && entry[n - 1] == '.' ? strncmp(entry, key, n) == 0
					: strcmp(entry, key) == 0;
}

bool config_equal_except(const struct config *a, const struct config *b,
			 const char *const *keys)
{
	for (size_t i = 0; i < N_KEYS; i++) {
		const char *const *k = keys;
		while (k && *k && !key_listed(*k, cfg_keys[i].key))
			k++;
		if ((!k || !*k) && !key_equal(a, b, &cfg_keys[i]))
			return false;
	}
	return true;
}

bool cfg_keys_equal(const void *a, const void *b, const struct cfg_key *keys,
		    size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!key_equal(a, b, &keys[i]))
			return false;
	return true;
}

bool config_equal(const struct config *a, const struct config *b)
{
	return cfg_keys_equal(a, b, cfg_keys, N_KEYS);
}

int config_set(struct config *c, const char *key, const char *value,
	       const char *where, char *err, size_t errlen)
{
	const struct cfg_key *k = cfg_find(key);

	if (!k)
		return cfg_err(err, errlen, where, "unknown key \"%s\"", key);
	return cfg_set_value(c, k, value, where, err, errlen);
}

int config_override(struct config *c, const char *kv, char *err,
		    size_t errlen)
{
	const char *eq = strchr(kv, '=');
	char where[320], key[128];

	snprintf(where, sizeof(where), "-o %s", kv);
	if (!eq || eq == kv || (size_t)(eq - kv) >= sizeof(key))
		return cfg_err(err, errlen, where, "expected KEY=VALUE");
	memcpy(key, kv, (size_t)(eq - kv));
	key[eq - kv] = '\0';
	return config_set(c, key, eq + 1, where, err, errlen);
}

int config_validate(const struct config *c, char *err, size_t errlen)
{
	if (c->port_guid && (c->port_ca[0] || c->port_num))
		return cfg_err(err, errlen, "configuration",
			       "port.guid and port.ca/port.num both choose the "
			       "SM port; set only one of them");
	if (c->m_key_mode == CFG_MKEY_FIXED && !c->m_key_key)
		return cfg_err(err, errlen, "configuration",
			       "m_key.mode is fixed but m_key.key is 0; give "
			       "the key");
	if (c->m_key_mode != CFG_MKEY_FIXED && c->m_key_key)
		return cfg_err(err, errlen, "configuration",
			       "m_key.key is set but m_key.mode is %s; the key "
			       "is used only with m_key.mode fixed",
			       c->m_key_mode == CFG_MKEY_OFF ? "off"
							     : "per-port");
	if (c->metrics_listen[0]) {
		struct sockaddr_storage ss;
		socklen_t sl;
		char why[96];

		if (listen_addr_parse(c->metrics_listen, &ss, &sl, why,
				      sizeof(why)) < 0)
			return cfg_err(err, errlen, "configuration",
				       "metrics.listen \"%s\": %s",
				       c->metrics_listen, why);
	}
	if (c->topology_expected[0] && c->topology_expected[0] != '/')
		return cfg_err(err, errlen, "configuration",
			       "topology.expected \"%s\" is not an absolute "
			       "path",
			       c->topology_expected);
	if (c->mad_window_per_node > c->mad_window)
		return cfg_err(err, errlen, "configuration",
			       "mad.window_per_node (%u) is larger than "
			       "mad.window (%u)", c->mad_window_per_node,
			       c->mad_window);
	return qos_config_check(c, err, errlen);
}

int config_check_daemon(const struct config *c, char *err, size_t errlen)
{
	/* Both would choose the SL of a PathRecord and the VL it maps to;
	 * design.md §5.3 says how they could share the 16 SLs, but only
	 * the layers are built. */
	if (c->routing_unicast == CFG_UCAST_LAYERED && c->qos_enable)
		return cfg_err(err, errlen, "configuration",
			       "routing.unicast: layered takes the SLs and "
			       "VLs for its layers; qos.enable: true (QoS "
			       "classes on SLs of their own) cannot be "
			       "combined with it yet");
	return 0;
}

int config_build(struct config *out, const char *path,
		 const char *const *overrides, size_t n_overrides, char *err,
		 size_t errlen)
{
	struct config c;
	int r;

	if ((r = config_defaults(&c)) < 0) {
		cfg_err(err, errlen, NULL, "out of memory");
		return r;
	}
	if (path && (r = config_load_file(&c, path, err, errlen)) < 0)
		goto fail;
	for (size_t i = 0; i < n_overrides; i++)
		if ((r = config_override(&c, overrides[i], err, errlen)) < 0)
			goto fail;
	if ((r = config_validate(&c, err, errlen)) < 0)
		goto fail;
	*out = c;
	return 0;
fail:
	config_free(&c);
	return r;
}

bool config_dump_wanted(const struct config *c, const char *name)
{
	for (uint32_t i = 0; i < c->dumps.n; i++)
		if (strcmp(c->dumps.v[i], name) == 0)
			return true;
	return false;
}

const char *config_enum_name(const char *key, int value)
{
	const struct cfg_key *k = cfg_find(key);

	if (!k || k->type != CFG_ENUM)
		return NULL;
	for (const struct cfg_enum *e = k->enums; e->name; e++)
		if (e->value == value)
			return e->name;
	return NULL;
}
