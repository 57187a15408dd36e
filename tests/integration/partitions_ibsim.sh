#!/bin/bash
# Partitions under ibsim, read back with the real tools
# (partitions_check.py holds the expected membership, written by hand):
#  1. every port's P_Key table (smpquery pkeys) holds exactly its
#     partitions, the default one at index 0; switch ports facing a host
#     hold the host's; switch-to-switch ports are left alone;
#  2. every host asks saquery for a PathRecord to every end port: a record
#     with the lowest shared P_Key when they share a partition, none
#     otherwise (no answer leaks across partitions); a P_Key asked for is
#     answered only when both ends hold it; a MultiPathRecord GetMulti (its paths with their partition's SL)
#     (tests/sim/sa_raw) answers only the pairs sharing a partition, at
#     SL 0 while QoS is off though blue says sl 5 (OpenSM does the same);
#  3. a multicast join with a P_Key the port is not in is refused, one in
#     its partition accepted; saquery -g shows a host only the groups of
#     its partitions; P_KeyTableRecord is refused without the SM_Key and
#     shows the table with it; a ServiceRecord is registered only in a
#     partition of its port and shown only to that partition's ports;
#  4. a SIGHUP that changes two hosts' partitions starts no sweep and
#     sends exactly the P_KeyTable blocks that differ between the tables
#     read before and after (no read, no other SMP); a heavy sweep of the
#     unchanged fabric then sends no P_KeyTable SMP;
#  5. OpenSM 3.3.23 given the equivalent partitions.conf on a second ibsim
#     of the same fabric leaves the same P_Keys on every port and answers
#     the same MultiPathRecords (P_Keys and SLs);
#  6. a SIGHUP turning QoS on gives blue's paths its sl 5, green's (sl
#     auto) qos.default_sl.
# What ibsim cannot show: it forwards every packet whatever its P_Key (no
# enforcement, no P_Key check on SA requests: the SA's own rules are what
# keeps answers inside partitions), and its PortInfo Set ignores the
# PartitionEnforcement bits (its SwitchInfo offers no Inbound/Outbound
# enforcement either), so those are unit-tested (test_pkeyprog.c).
. "$(dirname "$0")/mcast_common.bash"
need smpquery saquery opensm
CHECK="python3 $TOP/tests/integration/partitions_check.py"
export UMAD2SIM
"$O/ibsmgen" fattree2 --hosts 8 --radix 4 >"$T/small.net"

conf() { # $1: H4's line in green, $2: blue's members
	cat >"$T/ibsmd.yaml" <<EOF
sm:
  sweep_interval_ms: 0
  sm_key: 0x1234
partitions:
  - name: default
    pkey: 0x7fff
    ipoib: true
    members: [H1]
  - name: green
    pkey: 0x0010
    ipoib: true
    mtu: 2048
    members: [H2, H3]
$1
  - name: blue
    pkey: 0x0011
    sl: 5
    members: $2
    limited: [H7]
EOF
}
conf "    limited: [H4]" "[H5, H6, switches]"
mc_start "$T/small.net" -c "$T/ibsmd.yaml"
sim ibnetdiscover -p >"$T/netp" 2>/dev/null || fail "ibnetdiscover failed"

# 1. the tables
$CHECK read "$T/netp" "$T/t1.json" || fail "reading the P_Key tables"
$CHECK expect "$T/t1.json" 1 || fail "P_Key tables differ from the configuration"

# 2. PathRecords
$CHECK pairs "$T/netp" 1 || fail "PathRecords across partitions"
lid() { awk -v n="'$1'" '$1 == "CA" && $13 == n { print $2; exit }' "$T/netp"; }
pk() { sim_at "$1" saquery PR --slid "$2" --dlid "$3" ${4:+--pkey $4} 2>/dev/null |
	sed -n 's/.*pkey\.*\(0x[0-9A-F]*\).*/\1/p'; }
[ "$(pk H2 "$(lid H2)" "$(lid H4)" 0x8010)" = 0x8010 ] || fail "green path with its P_Key refused"
[ -z "$(pk H2 "$(lid H2)" "$(lid H4)" 0x8011)" ] || fail "green pair answered with blue's P_Key"
[ -z "$(pk H2 "$(lid H5)" "$(lid H6)")" ] || fail "H2 (green) learnt a path inside blue"
[ "$(pk H5 "$(lid H5)" "$(lid H6)")" = 0x8011 ] || fail "H5 cannot learn its own blue path"
echo "PathRecords: P_Keys asked for checked, third parties kept out"
pg() { awk -v n="'$1'" '$1 == "CA" && $13 == n { print $4; exit }' "$T/netp"; }
mpr() { sim_at "$1" "$O/tests/sim/sa_raw" "mpr:$2:$3" 2>/dev/null; }
# H2 (green) to a green host, a blue one and one in no partition: one path
mpr H2 "$(pg H2)" "$(pg H3),$(pg H5),$(pg H8)" >"$T/mpr1"
grep -q "^mpr status 0x0000 records 1$" "$T/mpr1" &&
	grep -q "^path slid $(lid H2) dlid $(lid H3) pkey 0x8010 sl 0$" "$T/mpr1" ||
	fail "MultiPathRecord from H2: $(cat "$T/mpr1")"
# H5 (blue): to H6 and H7 (limited) in blue, not to H2
mpr H5 "$(pg H5)" "$(pg H6),$(pg H7),$(pg H2)" >"$T/mpr2"
grep -q "^mpr status 0x0000 records 2$" "$T/mpr2" && [ "$(grep -c "pkey 0x8011 sl 0$" "$T/mpr2")" = 2 ] ||
	fail "MultiPathRecord from H5: $(cat "$T/mpr2")"
# H2 may not learn of blue's pairs
mpr H2 "$(pg H5)" "$(pg H6)" | grep -q "^mpr status 0x0000 records 0$" ||
	fail "MultiPathRecord: H2 learnt a path inside blue"
echo "MultiPathRecords: only pairs sharing a partition (SL 0: blue's sl 5 waits for QoS, as OpenSM's)"

# 3. joins and the groups a host sees
join() { sa_at "$1" join "$2" --pkey "$3" --qkey 0x0b1b; }
join H5 ff12:401b:8010::ffff:ffff 0x8010 | grep -q ERR_REQ_INVALID ||
	fail "H5 (blue) joined green's IPoIB group"
join H2 ff12:401b:8010::ffff:ffff 0x8010 | grep -q "^join_state 0x1" ||
	fail "H2 could not join its own partition's IPoIB group"
join H2 ff12:601b:8011::1 0x8011 | grep -q ERR_REQ_INVALID ||
	fail "H2 (green) created a group with blue's P_Key"
join H5 ff12:601b:8011::1 0x8011 | grep -q "^join_state 0x1" ||
	fail "H5 could not create a group in blue"
sim_at H8 saquery -g 2>/dev/null | grep MGID >"$T/h8groups"
[ "$(cat "$T/h8groups" | wc -l)" = 1 ] && grep -q "ff12:401b:ffff::ffff:ffff" "$T/h8groups" ||
	fail "H8 (default only) sees other partitions' groups: $(cat "$T/h8groups")"
sim_at H2 saquery -g 2>/dev/null | grep -q "ff12:401b:8010::ffff:ffff" ||
	fail "H2 does not see green's IPoIB group"
echo "joins: refused outside the port's partitions, accepted inside"
svc() { SA_SVC_PKEY=$2 sim_at "$1" "$O/tests/sim/sa_svc" set "$3" "$4" 2>/dev/null; }
svc H2 0x8010 0x1001 green-svc | grep -q "status 0x0000" || fail "H2 cannot register a service in green"
svc H5 0x8010 0x1002 blue-in-green | grep -q "status 0x0200" || fail "H5 registered a service in green"
sim_at H3 saquery -S 2>/dev/null | grep -q "green-svc" || fail "H3 does not see green's service"
sim_at H5 saquery -S 2>/dev/null | grep -q "green-svc" && fail "H5 (blue) sees green's service"
echo "ServiceRecords: registered and seen inside their partition only"
sim_at H2 saquery PKTR "$(lid H2)" 2>&1 | grep -q ERR_REQ_INVALID ||
	fail "P_KeyTableRecord answered to an untrusted requester"
sim_at H2 saquery --smkey 0x1234 PKTR "$(lid H2)" 2>/dev/null | grep -A2 "PKey Table" |
	grep -q "0x7fff 0x8010 0x0000" || fail "P_KeyTableRecord of H2 with the SM_Key: $(sim_at H2 saquery --smkey 0x1234 PKTR "$(lid H2)" 2>&1)"

# 4. SIGHUP: H4 leaves green, H8 joins blue
st() { ctl status | field "$1"; }
h0=$(st heavy_sweeps) d0=$(st smps_discovery) g0=$(st smps_pkey_gets)
s0=$(st smps_pkey_sets) p0=$(st smps_portinfo_sets)
conf "" "[H5, H6, H8, switches]"
n0=$(grep -c "written to" "$T/ibsmd.log")
kill -HUP "$IBSMD_PID"
for _ in $(seq 100); do
	[ "$(grep -c "written to" "$T/ibsmd.log")" -gt "$n0" ] && break
	sleep 0.1
done
grep -q "applied without a sweep" "$T/ibsmd.log" || fail "the reload was not seen as a partition change"
$CHECK read "$T/netp" "$T/t2.json" || fail "reading the P_Key tables again"
$CHECK expect "$T/t2.json" 2 || fail "P_Key tables after the SIGHUP"
changed=$($CHECK blocks "$T/t1.json" "$T/t2.json")
sent=$(( $(st smps_pkey_sets) - s0 ))
echo "SIGHUP: $sent P_KeyTable blocks sent, $changed blocks differ in the tables read back"
[ "$changed" -gt 0 ] || fail "nothing changed on the fabric"
[ "$sent" = "$changed" ] || fail "$sent blocks sent for $changed that changed"
[ "$(st heavy_sweeps)" = "$h0" ] || fail "the SIGHUP started a heavy sweep"
[ "$(st smps_discovery)" = "$d0" ] && [ "$(st smps_pkey_gets)" = "$g0" ] &&
	[ "$(st smps_portinfo_sets)" = "$p0" ] || fail "the SIGHUP sent other SMPs than P_KeyTable Sets"
$CHECK pairs "$T/netp" 2 || fail "PathRecords after the SIGHUP"
# a heavy sweep of the unchanged fabric reads and writes no P_Key block
g1=$(st smps_pkey_gets) s1=$(st smps_pkey_sets) h1=$(st heavy_sweeps)
ctl sweep >/dev/null || fail "ibsmctl sweep"
for _ in $(seq 100); do
	[ "$(st heavy_sweeps)" -gt "$h1" ] && [ "$(st sweep_state)" = IDLE ] && break
	sleep 0.1
done
[ "$(st heavy_sweeps)" -gt "$h1" ] || fail "no heavy sweep after ibsmctl sweep"
[ "$(st smps_pkey_gets)" = "$g1" ] && [ "$(st smps_pkey_sets)" = "$s1" ] ||
	fail "a heavy sweep of an unchanged fabric sent P_KeyTable SMPs"
echo "heavy sweep of the unchanged fabric: no P_KeyTable SMP"

# 5. OpenSM with the equivalent partitions.conf
guid() { awk -v n="'$1'" '$1 == "CA" && $13 == n { print $4; exit }' "$T/netp"; }
cat >"$T/partitions.conf" <<EOF
Default=0x7fff, ipoib : $(guid H1)=full ;
green=0x0010, ipoib, mtu=4 : $(guid H2)=full, $(guid H3)=full, $(guid H4)=limited ;
blue=0x0011, sl=5 : $(guid H5)=full, $(guid H6)=full, ALL_SWITCHES=full, $(guid H7)=limited ;
EOF
NET=$T/small.net SIMARGS="$("$O/ibsmgen" ibsim-args "$T/small.net")"
start_named_sim osm
mkdir -p "$T/osm"
OSM_CACHE_DIR=$T/osm SIM_HOST=H1 at osm opensm -P "$T/partitions.conf" \
	-f "$T/opensm.log" -d2 >"$T/opensm.out" 2>&1 &
for _ in $(seq 300); do grep -q "SUBNET UP" "$T/opensm.log" 2>/dev/null && break; sleep 0.1; done
grep -q "SUBNET UP" "$T/opensm.log" || fail "OpenSM did not bring the subnet up"
sleep 1 # OpenSM writes P_Keys in the sweep it calls up; let the last land
# OpenSM gives other LIDs: its own fabric's listing
SIM_HOST=H1 at osm ibnetdiscover -p >"$T/netp-osm" 2>/dev/null || fail "ibnetdiscover (OpenSM)"
IBSIM_SOCKNAME=${IBSIM_SOCKNAME}osm $CHECK read "$T/netp-osm" "$T/osm.json" ||
	fail "reading OpenSM's P_Key tables"
$CHECK same "$T/t1.json" "$T/osm.json" || fail "ibsmd and OpenSM differ"
# the same MultiPathRecords (GUIDs are the same on both ibsims; OpenSM's
# LIDs differ, so only the record counts and P_Keys are compared)
osm_mpr() { SIM_HOST=$1 at osm "$O/tests/sim/sa_raw" "mpr:$2:$3" 2>/dev/null |
	sed 's/slid [0-9]* dlid [0-9]* //'; }
for q in "H2 $(pg H2) $(pg H3),$(pg H5),$(pg H8) mpr1" "H5 $(pg H5) $(pg H6),$(pg H7),$(pg H2) mpr2"; do
	set -- $q
	osm_mpr "$1" "$2" "$3" >"$T/$4.osm"
	sed 's/slid [0-9]* dlid [0-9]* //' "$T/$4" | diff - "$T/$4.osm" ||
		fail "MultiPathRecord from $1: ibsmd and OpenSM differ"
done

# 6. with QoS on a partition's sl is its paths' SL
n0=$(grep -c "reload: configuration" "$T/ibsmd.log")
printf 'qos:\n  enable: true\n  default_sl: 2\n' >>"$T/ibsmd.yaml"
kill -HUP "$IBSMD_PID"
for _ in $(seq 100); do
	[ "$(grep -c "reload: configuration" "$T/ibsmd.log")" -gt "$n0" ] && break
	sleep 0.1
done
[ "$(grep -c "reload: configuration" "$T/ibsmd.log")" -gt "$n0" ] || fail "QoS reload not applied"
mpr H5 "$(pg H5)" "$(pg H6),$(pg H7)" >"$T/mpr3"
[ "$(grep -c "pkey 0x8011 sl 5$" "$T/mpr3")" = 2 ] || fail "QoS on: blue's paths not on its sl 5: $(cat "$T/mpr3")"
mpr H2 "$(pg H2)" "$(pg H3)" | grep -q "pkey 0x8010 sl 2$" ||
	fail "QoS on: green's paths (sl auto) not on qos.default_sl 2: $(mpr H2 "$(pg H2)" "$(pg H3)")"
echo "QoS on: blue's paths on SL 5, green's on qos.default_sl 2"
echo "PASS: partitions programmed, answered and reloaded as configured"
