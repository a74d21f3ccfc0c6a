//! ndnccd in-process: real sockets on loopback, a daemon thread, clients written with the wire
//! codec. Robustness (malformed input, PIT bound, floods, disconnects) and the ndnd-facing
//! details (PitToken echo, nonce-less Interests), UDP fragments.

use ndncc_rt::daemon::config::Config;
use ndncc_rt::daemon::Daemon;
use ndncc_wire::dataset::{decode_faces, FaceStatus};
use ndncc_wire::mgmt::{CommandInterest, ControlParameters, ControlResponse, Scope};
use ndncc_wire::packet::element_len;
use ndncc_wire::{Data, DataView, Frame, Interest, LpPacket, Name, NetPacket};
use std::io::{Read, Write};
use std::net::{TcpStream, UdpSocket};
use std::thread::JoinHandle;
use std::time::Duration;

struct Running {
    handle: JoinHandle<Daemon>,
    stop: ndncc_rt::daemon::StopHandle,
    tcp: std::net::SocketAddr,
    udp: std::net::SocketAddr,
}

fn start(extra: &str) -> Running {
    let text = format!("[listen]\ntcp = \"127.0.0.1:0\"\nudp = \"127.0.0.1:0\"\n{extra}");
    let cfg = Config::parse(&text).unwrap();
    let mut d = Daemon::bind(cfg).unwrap();
    let (tcp, udp) = (d.tcp_addr().unwrap(), d.udp_addr().unwrap());
    let stop = d.stop_handle();
    let handle = std::thread::spawn(move || {
        d.run().unwrap();
        d
    });
    Running {
        handle,
        stop,
        tcp,
        udp,
    }
}

impl Running {
    fn finish(self) -> Daemon {
        self.stop.stop();
        self.handle.join().unwrap()
    }
}

fn connect(addr: std::net::SocketAddr) -> TcpStream {
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.set_nodelay(true).unwrap();
    s
}

/// Reads one TLV element from a stream (None on EOF or timeout).
fn read_frame(s: &mut TcpStream, buf: &mut Vec<u8>) -> Option<Vec<u8>> {
    loop {
        if let Ok(Some(n)) = element_len(buf, 1 << 20) {
            return Some(buf.drain(..n).collect());
        }
        let mut chunk = [0u8; 4096];
        match s.read(&mut chunk) {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

/// True when the peer closed the stream (EOF or reset), false on a timeout.
fn closed_by_peer(s: &mut TcpStream) -> bool {
    let mut chunk = [0u8; 4096];
    loop {
        match s.read(&mut chunk) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return true,
            Err(_) => return false,
        }
    }
}

fn interest(uri: &str, nonce: u32) -> Vec<u8> {
    let mut i = Interest::new(Name::from_uri(uri).unwrap(), nonce);
    i.lifetime = Some(2000);
    i.encode().unwrap()
}

/// A producer on a TCP face that registered `prefix` through management.
fn producer(addr: std::net::SocketAddr, prefix: &str) -> (TcpStream, Vec<u8>) {
    let mut s = connect(addr);
    let cmd = CommandInterest {
        scope: Scope::Localhost,
        module: "rib".into(),
        verb: "register".into(),
        params: ControlParameters::for_name(Name::from_uri(prefix).unwrap()),
        nonce: 7,
        lifetime_ms: 1000,
        signature_time_ms: 1,
        signature_nonce: 2,
    };
    s.write_all(&cmd.encode().unwrap()).unwrap();
    let mut buf = Vec::new();
    let reply = read_frame(&mut s, &mut buf).unwrap();
    let d = DataView::decode(&reply).unwrap();
    d.verify_digest_sha256().unwrap();
    let r = ControlResponse::decode(d.content.unwrap()).unwrap();
    assert_eq!(r.status_code, 200, "{}", r.status_text);
    (s, buf)
}

/// Answers every Interest the producer reads until `n` were answered; returns the Interests.
fn serve(s: &mut TcpStream, buf: &mut Vec<u8>, n: usize) -> Vec<Vec<u8>> {
    let mut seen = Vec::new();
    while seen.len() < n {
        let Some(f) = read_frame(s, buf) else { break };
        let fr = Frame::decode(&f).unwrap();
        let Some(NetPacket::Interest(i)) = fr.net else {
            continue;
        };
        let d = Data::new(i.name.to_owned(), vec![1u8; 100]).encode();
        s.write_all(&d).unwrap();
        seen.push(f.clone());
    }
    seen
}

#[test]
fn malformed_datagrams_and_stream_frames_are_counted_and_dropped() {
    let r = start("");
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let garbage: Vec<Vec<u8>> = vec![
        vec![],
        vec![0x05],
        vec![0x05, 0x10, 0x07],
        vec![0x00, 0x00],
        vec![0x05, 0x03, 0x07, 0x01, 0x08],
        vec![0x64, 0x04, 0x63, 0x00, 0x50, 0x00], // unknown critical LP header
        vec![0x13, 0x02, 0x01, 0x02],             // not a packet type
        (0..200u8).collect(),
    ];
    for g in &garbage {
        udp.send_to(g, r.udp).unwrap();
    }
    // the daemon still answers: an unrouted Interest comes back as Nack(NoRoute)
    udp.send_to(&interest("/nowhere/x", 1), r.udp).unwrap();
    let mut b = [0u8; 9000];
    let n = udp.recv(&mut b).unwrap();
    let f = Frame::decode(&b[..n]).unwrap();
    assert!(f.is_nack());
    assert_eq!(
        f.lp.unwrap().nack.unwrap().reason,
        Some(ndncc_wire::NackReason::NoRoute)
    );
    // a stream face with a bad frame header is closed; another stream face is untouched
    let mut good = connect(r.tcp);
    let mut bad = connect(r.tcp);
    bad.write_all(&[0x00, 0x01, 0x02]).unwrap();
    let mut buf = Vec::new();
    assert!(closed_by_peer(&mut bad), "closed by the daemon");
    // a frame announcing more than max_packet closes too
    let mut big = connect(r.tcp);
    big.write_all(&[0x05, 0xFD, 0xFF, 0xFF]).unwrap();
    assert!(closed_by_peer(&mut big));
    // well-framed but undecodable: dropped, the face stays
    good.write_all(&[0x05, 0x02, 0x13, 0x00]).unwrap();
    good.write_all(&interest("/nowhere/y", 2)).unwrap();
    let f = read_frame(&mut good, &mut buf).unwrap();
    assert!(Frame::decode(&f).unwrap().is_nack());
    let d = r.finish();
    // 8 bad datagrams (the empty one included), 2 bad headers, 1 bad element
    assert_eq!(d.stats.malformed, 11, "{}", d.report());
    assert_eq!(d.fwd.core.counters.rejected, 2);
}

/// The daemon's `faces/list` dataset, asked on `s` (other frames on the way are skipped).
fn faces_list(s: &mut TcpStream, buf: &mut Vec<u8>, nonce: u32) -> Vec<FaceStatus> {
    let mut i = Interest::new(Name::from_uri("/localhost/nfd/faces/list").unwrap(), nonce);
    i.can_be_prefix = true;
    i.must_be_fresh = true;
    s.write_all(&i.encode().unwrap()).unwrap();
    loop {
        let f = read_frame(s, buf).expect("a faces/list reply");
        if let Some(NetPacket::Data(d)) = Frame::decode(&f).unwrap().net {
            if d.name.to_string().starts_with("/localhost/nfd/faces/list") {
                return decode_faces(d.content.unwrap_or_default()).unwrap();
            }
        }
    }
}

/// A `[[face]]` towards a UDP socket of the test's with a byte queue of ten Interests' size:
/// the queue holds exactly ten (a byte bound, not a packet count), drops the rest, and
/// `faces/list` and the stop report count the drops on that face (packets and bytes).
#[test]
fn a_byte_queue_drops_at_its_byte_bound_and_faces_list_counts_the_drops() {
    let sink = UdpSocket::bind("127.0.0.1:0").unwrap();
    let name = |k: usize| format!("/q/n{k:04}");
    let size = interest(&name(0), 1).len();
    // 1 bit/s: the first Interest holds the transmitter for minutes, the rest wait
    let r = start(&format!(
        "[[face]]\nuri = \"udp4://{}\"\nlink = {{ bandwidth_mbps = 1e-6, queue = \"{}B\" }}\n\
         [[route]]\nprefix = \"/q\"\nface = 0\n",
        sink.local_addr().unwrap(),
        10 * size
    ));
    let mut c = connect(r.tcp);
    let mut buf = Vec::new();
    c.write_all(&interest(&name(0), 1)).unwrap();
    // once the reply is back, the loop has put the first Interest on the link
    let before = faces_list(&mut c, &mut buf, 900);
    let up = |faces: &[FaceStatus]| {
        faces
            .iter()
            .find(|f| f.uri.starts_with("udp4://"))
            .cloned()
            .expect("the [[face]]")
    };
    assert_eq!(up(&before).n_queue_drops, Some(0));
    let burst: Vec<u8> = (1..=25)
        .flat_map(|k| interest(&name(k), 1 + k as u32))
        .collect();
    assert!((1..=25).all(|k| interest(&name(k), 1).len() == size));
    c.write_all(&burst).unwrap();
    let after = up(&faces_list(&mut c, &mut buf, 901));
    // 10 of the 25 fit in 10 Interests' bytes; a packet count of 10·size would take them all
    assert_eq!(after.n_queue_drops, Some(15), "{after:?}");
    assert_eq!(after.n_queue_drop_bytes, Some(15 * size as u64));
    // the TCP faces dropped nothing
    let d = r.finish();
    let report: serde_json::Value = serde_json::from_str(&d.report()).unwrap();
    let faces = report["faces"].as_array().unwrap();
    let f = faces.iter().find(|f| f["id"] == after.face_id).unwrap();
    assert_eq!(f["drops"], 15);
    assert_eq!(f["drop_bytes"], 15 * size as u64);
    assert_eq!(f["queue"], format!("{}B", 10 * size));
    assert_eq!(f["max_queue_bytes"], 10 * size as u64);
    let others: u64 = faces
        .iter()
        .filter(|g| g["id"] != after.face_id)
        .map(|g| g["drops"].as_u64().unwrap())
        .sum();
    assert_eq!(others, 0, "{faces:?}");
}

/// Data for a consumer that left are counted on its closed face apart from its queue's drops
/// (`after_close`), so that a report of queue drops shows only what a queue refused.
#[test]
fn data_sent_to_a_closed_face_are_not_counted_as_its_queue_drops() {
    let r = start("");
    let (mut prod, mut pbuf) = producer(r.tcp, "/p");
    let mut a = connect(r.tcp);
    for i in 0..3u32 {
        a.write_all(&interest(&format!("/p/gone/seg={i}"), 70 + i))
            .unwrap();
    }
    let mut f = read_frame(&mut prod, &mut pbuf).unwrap();
    let a_id = {
        let mut m = connect(r.tcp);
        let faces = faces_list(&mut m, &mut Vec::new(), 902);
        assert_eq!(faces.len(), 3, "producer, a, this one: {faces:?}");
        faces[1].face_id
    };
    drop(a);
    // wait until the daemon has closed a's face
    for k in 0.. {
        let mut m = connect(r.tcp);
        if faces_list(&mut m, &mut Vec::new(), 903 + k)
            .iter()
            .all(|x| x.face_id != a_id)
        {
            break;
        }
        assert!(k < 100, "a's face is still open");
        std::thread::sleep(Duration::from_millis(20));
    }
    for k in 0..3 {
        let Some(NetPacket::Interest(i)) = Frame::decode(&f).unwrap().net else {
            panic!("an Interest upstream")
        };
        prod.write_all(&Data::new(i.name.to_owned(), vec![1u8; 100]).encode())
            .unwrap();
        if k < 2 {
            f = read_frame(&mut prod, &mut pbuf).unwrap();
        }
    }
    std::thread::sleep(Duration::from_millis(100));
    let d = r.finish();
    let report: serde_json::Value = serde_json::from_str(&d.report()).unwrap();
    let face = report["faces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["id"] == a_id)
        .unwrap()
        .clone();
    assert_eq!(face["queue"], "closed");
    assert_eq!(
        (face["drops"].clone(), face["after_close"].clone()),
        (0.into(), 3.into())
    );
}

/// The stop report counts each face's packets by type: a consumer's two Interests in on its
/// face and out on the producer's, their two Data back the other way.
#[test]
fn the_stop_report_counts_each_faces_interests_and_data() {
    let r = start("");
    let (mut prod, mut pbuf) = producer(r.tcp, "/p");
    let mut c = connect(r.tcp);
    let mut cbuf = Vec::new();
    let ids: Vec<_> = faces_list(&mut connect(r.tcp), &mut Vec::new(), 950)
        .iter()
        .map(|f| f.face_id)
        .collect();
    for k in 0..2u32 {
        c.write_all(&interest(&format!("/p/n/seg={k}"), 80 + k))
            .unwrap();
        let f = read_frame(&mut prod, &mut pbuf).unwrap();
        let Some(NetPacket::Interest(i)) = Frame::decode(&f).unwrap().net else {
            panic!("an Interest upstream")
        };
        prod.write_all(&Data::new(i.name.to_owned(), vec![1u8; 100]).encode())
            .unwrap();
        let back = read_frame(&mut c, &mut cbuf).unwrap();
        assert!(matches!(
            Frame::decode(&back).unwrap().net,
            Some(NetPacket::Data(_))
        ));
    }
    let d = r.finish();
    let report: serde_json::Value = serde_json::from_str(&d.report()).unwrap();
    let face = |id| {
        report["faces"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["id"] == id)
            .unwrap()
            .clone()
    };
    let counts = |f: serde_json::Value| {
        [
            "out_interests",
            "in_data",
            "in_interests",
            "out_data",
            "out_nacks",
            "in_nacks",
        ]
        .map(|k| f[k].as_u64().expect(k))
    };
    // faces/list: the producer's face, then the consumer's
    assert_eq!(counts(face(ids[0])), [2, 2, 0, 0, 0, 0]);
    assert_eq!(counts(face(ids[1])), [0, 0, 2, 2, 0, 0]);
}

/// One Interest read from a test's UDP "producer" within `wait`: (its name, its PitToken, the
/// daemon's address).
fn udp_interest(
    s: &UdpSocket,
    wait: Duration,
) -> Option<(Name, Option<Vec<u8>>, std::net::SocketAddr)> {
    s.set_read_timeout(Some(wait)).unwrap();
    let mut b = [0u8; 9000];
    let (n, from) = s.recv_from(&mut b).ok()?;
    let f = Frame::decode(&b[..n]).unwrap();
    let Some(NetPacket::Interest(i)) = f.net else {
        return None;
    };
    Some((
        i.name.to_owned(),
        f.lp.and_then(|l| l.pit_token).map(<[u8]>::to_vec),
        from,
    ))
}

/// `strategy = "pcon"` runs the core's PCON strategy on the daemon: Interests start on the
/// cheapest of two next hops, and marked Data from it shift the ratio to the other (50 marks:
/// p = 0.98^50 ≈ 0.36 left on the first).
#[test]
fn the_pcon_strategy_shifts_interests_away_from_a_face_returning_marked_data() {
    let a = UdpSocket::bind("127.0.0.1:0").unwrap();
    let b = UdpSocket::bind("127.0.0.1:0").unwrap();
    let r = start(&format!(
        "[forwarder]\nstrategy = \"pcon\"\n\
         [[face]]\nuri = \"udp4://{}\"\n[[face]]\nuri = \"udp4://{}\"\n\
         [[route]]\nprefix = \"/m\"\nface = 0\ncost = 0\n\
         [[route]]\nprefix = \"/m\"\nface = 1\ncost = 10\n",
        a.local_addr().unwrap(),
        b.local_addr().unwrap()
    ));
    let mut c = connect(r.tcp);
    let short = Duration::from_millis(20);
    let (mut marks, mut k, mut first) = (0, 0u32, None);
    while marks < 50 {
        k += 1;
        assert!(k < 1000, "{marks} marks after {k} Interests");
        c.write_all(&interest(&format!("/m/a{k}"), k)).unwrap();
        // answer on whichever face it came: the first with marked Data, the second plain
        loop {
            if let Some((n, tok, from)) = udp_interest(&a, short) {
                first.get_or_insert("a");
                let lp = LpPacket {
                    pit_token: tok,
                    congestion_mark: Some(1),
                    ..LpPacket::wrap(Data::new(n, vec![1u8; 10]).encode())
                };
                a.send_to(&lp.encode().unwrap(), from).unwrap();
                marks += 1;
                break;
            }
            if let Some((n, tok, from)) = udp_interest(&b, short) {
                first.get_or_insert("b");
                let lp = LpPacket {
                    pit_token: tok,
                    ..LpPacket::wrap(Data::new(n, vec![1u8; 10]).encode())
                };
                b.send_to(&lp.encode().unwrap(), from).unwrap();
                break;
            }
        }
        read_frame(&mut c, &mut Vec::new()).expect("the Data back");
    }
    assert_eq!(first, Some("a"), "100 % on the cheapest next hop at first");
    // now about 64 % of new Interests take the second face (long lifetimes: no expiry shifts)
    for j in 0..100u32 {
        let mut i = Interest::new(Name::from_uri(&format!("/m/b{j}")).unwrap(), 5000 + j);
        i.lifetime = Some(60_000);
        c.write_all(&i.encode().unwrap()).unwrap();
    }
    let (mut on_a, mut on_b) = (0, 0);
    while udp_interest(&a, Duration::from_millis(300)).is_some() {
        on_a += 1;
    }
    while udp_interest(&b, Duration::from_millis(300)).is_some() {
        on_b += 1;
    }
    // probing (r ≤ 0.001) may duplicate one on both faces
    assert!((100..=103).contains(&(on_a + on_b)), "{on_a} + {on_b}");
    // on a: Binomial(100, 0.36), 10..=65 is beyond 5 standard deviations either way
    assert!(
        (10..=65).contains(&on_a) && on_b >= 35,
        "{on_a} on a, {on_b} on b"
    );
    r.finish();
}

#[test]
fn pit_is_bounded_and_a_flood_of_new_names_does_not_grow_the_tables() {
    // a route to a face that never answers: every Interest stays pending
    let sink = UdpSocket::bind("127.0.0.1:0").unwrap();
    let extra = format!(
        "[forwarder]\npit_max = 500\nnames_max = 300\nstore_max = 1000\n\
         [[face]]\nuri = \"udp4://{}\"\n[[route]]\nprefix = \"/flood\"\nface = 0\n",
        sink.local_addr().unwrap()
    );
    let r = start(&extra);
    let mut s = connect(r.tcp);
    for i in 0..20_000u32 {
        // two fresh components per name: each would be a new table entry
        s.write_all(&interest(&format!("/flood/{i}/x"), i)).unwrap();
    }
    // the last one may still be in the socket: a management round trip orders us after it
    let (_p, _) = producer(r.tcp, "/other");
    let d = r.finish();
    let c = d.fwd.core.counters;
    assert_eq!(d.fwd.core.pit.len(), 500, "{}", d.report());
    assert_eq!(c.pit_full, 20_000 - 500);
    assert!(d.fwd.core.names.len() <= 300 + 1, "{}", d.report());
    assert!(d.mapper.hashed > 19_000);
    assert!(d.store.interests.len() <= 1000);
}

#[test]
fn a_consumer_that_disconnects_mid_transfer_costs_the_others_nothing() {
    let r = start("");
    let (mut prod, mut pbuf) = producer(r.tcp, "/p");
    let mut a = connect(r.tcp);
    let mut b = connect(r.tcp);
    for i in 0..50u32 {
        a.write_all(&interest(&format!("/p/a/seg={i}"), i)).unwrap();
        b.write_all(&interest(&format!("/p/b/seg={i}"), 1000 + i))
            .unwrap();
    }
    // a leaves before any Data came back
    drop(a);
    let seen = serve(&mut prod, &mut pbuf, 100);
    assert_eq!(seen.len(), 100);
    let mut buf = Vec::new();
    let got = (0..50)
        .filter_map(|_| read_frame(&mut b, &mut buf))
        .filter(|f| matches!(Frame::decode(f).unwrap().net, Some(NetPacket::Data(_))))
        .count();
    assert_eq!(got, 50);
    let d = r.finish();
    assert_eq!(d.fwd.core.counters.satisfied, 100, "{}", d.report());
    assert_eq!(d.stats.faces_closed, 1);
    // the route of the producer survives the consumer's departure
    assert_eq!(d.fwd.core.fib.len(), 1);
}

#[test]
fn a_pit_token_of_any_length_is_echoed_downstream_and_never_forwarded() {
    let r = start("");
    let (mut prod, mut pbuf) = producer(r.tcp, "/p");
    let mut c = connect(r.tcp);
    let token = vec![1, 2, 3, 4, 5, 6, 7, 8];
    let lp = LpPacket {
        pit_token: Some(token.clone()),
        ..LpPacket::wrap(interest("/p/t/seg=0", 5))
    };
    c.write_all(&lp.encode().unwrap()).unwrap();
    let seen = serve(&mut prod, &mut pbuf, 1);
    let up = Frame::decode(&seen[0]).unwrap();
    let own = up
        .lp
        .and_then(|l| l.pit_token)
        .expect("ndnccd's own token upstream");
    assert_eq!(own.len(), 6, "ndnd takes 6-byte tokens only");
    assert_ne!(own, &token[..6], "the downstream's token is not forwarded");
    let back = read_frame(&mut c, &mut Vec::new()).unwrap();
    let f = Frame::decode(&back).unwrap();
    assert_eq!(f.lp.unwrap().pit_token, Some(&token[..]));
    assert!(matches!(f.net, Some(NetPacket::Data(_))));
    let d = r.finish();
    // `serve` answers without a token: sent and returned, none echoed
    let t = d.tokens.stats;
    assert_eq!(
        (t.sent, t.absent, t.echoed, t.returned),
        (1, 1, 0, 1),
        "{t:?}"
    );
}

/// Producer answers to three Interests: the daemon's token echoed, another token, none.
#[test]
fn the_token_echoed_upstream_is_checked_against_the_pit_entry() {
    let r = start("");
    let (mut prod, mut pbuf) = producer(r.tcp, "/p");
    let mut c = connect(r.tcp);
    let mut tokens = Vec::new();
    for (k, echo) in ["ours", "other", "none"].into_iter().enumerate() {
        c.write_all(&interest(&format!("/p/e/seg={k}"), 10 + k as u32))
            .unwrap();
        let f = read_frame(&mut prod, &mut pbuf).unwrap();
        let fr = Frame::decode(&f).unwrap();
        let Some(NetPacket::Interest(i)) = fr.net else {
            panic!("an Interest upstream")
        };
        let tok = fr.lp.and_then(|l| l.pit_token).unwrap().to_vec();
        let data = Data::new(i.name.to_owned(), vec![1u8; 10]).encode();
        let out = match echo {
            "ours" => LpPacket {
                pit_token: Some(tok.clone()),
                ..LpPacket::wrap(data)
            }
            .encode()
            .unwrap(),
            "other" => LpPacket {
                pit_token: Some(tok.iter().map(|b| b ^ 0xFF).collect()),
                ..LpPacket::wrap(data)
            }
            .encode()
            .unwrap(),
            _ => data,
        };
        prod.write_all(&out).unwrap();
        tokens.push(tok);
        // every Data is still delivered (the core PIT matches by name)
        let back = read_frame(&mut c, &mut Vec::new()).unwrap();
        assert!(matches!(
            Frame::decode(&back).unwrap().net,
            Some(NetPacket::Data(_))
        ));
    }
    assert!(
        tokens[0] != tokens[1] && tokens[1] != tokens[2],
        "one token per entry"
    );
    let d = r.finish();
    let t = d.tokens.stats;
    assert_eq!(
        (t.sent, t.echoed, t.mismatched, t.absent, t.returned),
        (3, 1, 1, 1, 0),
        "{t:?}"
    );
    assert!(d.report().contains("\"pit_tokens\""));
}

#[test]
fn a_nonce_less_interest_gets_a_nonce_before_it_goes_on() {
    let r = start("");
    let (mut prod, mut pbuf) = producer(r.tcp, "/p");
    let mut c = connect(r.tcp);
    let mut i = Interest::new(Name::from_uri("/p/n/seg=1").unwrap(), 0);
    i.nonce = None;
    c.write_all(&i.encode().unwrap()).unwrap();
    let seen = serve(&mut prod, &mut pbuf, 1);
    let Some(NetPacket::Interest(up)) = Frame::decode(&seen[0]).unwrap().net else {
        panic!()
    };
    assert!(up.nonce.is_some(), "ndnd drops Interests without a Nonce");
    assert!(read_frame(&mut c, &mut Vec::new()).is_some());
    let d = r.finish();
    assert_eq!(d.stats.nonce_added, 1);
}

#[test]
fn udp_fragments_are_reassembled_and_large_packets_fragmented() {
    let r = start("");
    let (mut prod, mut pbuf) = producer(r.tcp, "/p");
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    // an Interest in three fragments
    let mut big = Interest::new(Name::from_uri("/p/big/seg=0").unwrap(), 9);
    big.app_params = Some(vec![7u8; 3000]);
    let whole = big.encode().unwrap();
    let types = ndncc_wire::ExtTypes::default();
    let frags =
        ndncc_wire::reassembly::fragment(&whole, &LpPacket::default(), 1200, 100, &types).unwrap();
    assert!(frags.len() >= 3);
    for f in &frags {
        udp.send_to(f, r.udp).unwrap();
    }
    let seen = serve(&mut prod, &mut pbuf, 1);
    // forwarded whole, byte for byte, in an LpPacket with the daemon's PitToken
    let up = Frame::decode(&seen[0]).unwrap();
    assert_eq!(up.lp.and_then(|l| l.fragment), Some(&whole[..]));
    assert_eq!(up.lp.and_then(|l| l.pit_token).map(<[u8]>::len), Some(6));
    // its 100-byte Data comes back whole; a 4000-byte Data would come in fragments
    let mut b = [0u8; 9000];
    let n = udp.recv(&mut b).unwrap();
    assert!(matches!(
        Frame::decode(&b[..n]).unwrap().net,
        Some(NetPacket::Data(_))
    ));
    let d = r.finish();
    assert_eq!(d.stats.reassembled, 1);
    assert_eq!(d.stats.malformed, 0);
}

#[test]
fn a_can_be_prefix_interest_is_satisfied_by_a_longer_data_name() {
    let r = start("");
    let (mut prod, mut pbuf) = producer(r.tcp, "/p");
    let mut c = connect(r.tcp);
    let mut i = Interest::new(Name::from_uri("/p/doc").unwrap(), 3);
    i.can_be_prefix = true;
    c.write_all(&i.encode().unwrap()).unwrap();
    // an Interest without CanBePrefix is not satisfied by a longer name
    c.write_all(&interest("/p/exact", 4)).unwrap();
    let mut seen = 0;
    while seen < 2 {
        let f = read_frame(&mut prod, &mut pbuf).unwrap();
        let Some(NetPacket::Interest(up)) = Frame::decode(&f).unwrap().net else {
            continue;
        };
        let long = format!("{}/v=1/seg=0", up.name);
        prod.write_all(&Data::new(Name::from_uri(&long).unwrap(), vec![5u8; 10]).encode())
            .unwrap();
        seen += 1;
    }
    let back = read_frame(&mut c, &mut Vec::new()).unwrap();
    let Some(NetPacket::Data(d)) = Frame::decode(&back).unwrap().net else {
        panic!()
    };
    assert_eq!(d.name.to_string(), "/p/doc/v=1/seg=0");
    let d = r.finish();
    assert_eq!(d.fwd.core.counters.satisfied, 1, "{}", d.report());
    assert_eq!(d.fwd.core.counters.unsolicited_data, 1);
}

#[test]
fn an_interest_lifetime_or_freshness_of_any_size_is_taken_without_a_panic() {
    // 64-bit lifetimes and freshness periods off the wire: the ms → ns conversion saturates
    // (it overflowed before: a debug build's daemon thread panicked, a release build wrapped)
    let r = start("");
    let (mut prod, mut pbuf) = producer(r.tcp, "/big");
    let mut c = connect(r.tcp);
    let mut i = Interest::new(Name::from_uri("/big/n/seg=1").unwrap(), 7);
    i.lifetime = Some(u64::MAX / 2);
    c.write_all(&i.encode().unwrap()).unwrap();
    let seen = serve(&mut prod, &mut pbuf, 1);
    assert_eq!(seen.len(), 1);
    // the daemon still serves: a second consumer's Interest goes through too
    let mut c2 = connect(r.tcp);
    c2.write_all(&interest("/big/n/seg=2", 8)).unwrap();
    assert_eq!(serve(&mut prod, &mut pbuf, 1).len(), 1);
    assert!(read_frame(&mut c2, &mut Vec::new()).is_some());
    r.finish();
}

/// A loopback TCP listener that never answers a connect: its accept queue (backlog 0: room
/// for one) is filled by a connection nobody accepts, so the kernel drops every further SYN
/// and a connect stays under way (as towards a black-holed address). Returns the listener
/// and the filler, which must stay open, and the address.
fn unanswering_listener() -> (std::net::TcpListener, TcpStream, std::net::SocketAddr) {
    use std::os::fd::FromRawFd;
    // SAFETY: plain socket calls on a descriptor this function owns; the listener takes it
    let listener = unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        assert!(fd >= 0, "socket");
        let mut sa: libc::sockaddr_in = std::mem::zeroed();
        sa.sin_family = libc::AF_INET as libc::sa_family_t;
        sa.sin_addr.s_addr = u32::from(std::net::Ipv4Addr::LOCALHOST).to_be();
        let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
        assert_eq!(
            libc::bind(fd, std::ptr::addr_of!(sa).cast(), len),
            0,
            "bind"
        );
        assert_eq!(libc::listen(fd, 0), 0, "listen");
        std::net::TcpListener::from_raw_fd(fd)
    };
    let addr = listener.local_addr().unwrap();
    let filler = TcpStream::connect(addr).unwrap();
    // the set-up itself: a connect to it now gets no answer
    let probe = TcpStream::connect_timeout(&addr, Duration::from_millis(300));
    assert!(
        probe
            .as_ref()
            .is_err_and(|e| e.kind() == std::io::ErrorKind::TimedOut),
        "the listener answered: {probe:?}"
    );
    (listener, filler, addr)
}

/// While the SDN controller's TCP address does not answer, the daemon keeps forwarding: its
/// connect is under way in the kernel, not in the loop. Each UDP Interest for an unrouted name
/// comes back as a Nack after one turn of the loop; K of them are sent one after the other.
/// A connect that blocked the loop (the old `connect_timeout(200 ms)` on every attempt, retried
/// every 1 ms) let about one through per attempt: attempts finished ≈ K. Non-blocking, the
/// first attempt is still under way (or a few timed out, 200 ms each) when the K are done.
/// The bound, K ≥ 4 × (attempts finished + 1), holds unless the K round trips on loopback
/// averaged above ~50 ms; a blocking loop misses it by a factor of four. No clock is read by
/// the assertion: it compares counts.
#[test]
fn an_unanswering_controller_does_not_stall_forwarding() {
    const K: u64 = 40;
    let (_listener, _filler, addr) = unanswering_listener();
    let r = start(&format!(
        "[sdn]\ncontroller = \"tcp://{addr}\"\nnode = 0\nretry_min_ms = 1\nretry_max_ms = 1\n"
    ));
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let t0 = std::time::Instant::now();
    let mut b = [0u8; 9000];
    for k in 0..K {
        udp.send_to(&interest(&format!("/nowhere/k{k}"), k as u32 + 1), r.udp)
            .unwrap();
        let n = udp.recv(&mut b).expect("a Nack for each Interest");
        assert!(Frame::decode(&b[..n]).unwrap().is_nack());
    }
    let took = t0.elapsed();
    let d = r.finish();
    let report: serde_json::Value = serde_json::from_str(&d.report()).unwrap();
    let sdn = &report["sdn"];
    let finished = sdn["connects"].as_u64().unwrap() + sdn["connect_failures"].as_u64().unwrap();
    // a figure for the record, not asserted
    eprintln!("{K} round trips in {took:?}; connect attempts finished: {finished}");
    assert!(
        K >= 4 * (finished + 1),
        "{K} Interests forwarded while {finished} connect attempts finished: {sdn}"
    );
    assert_eq!(sdn["connects"], 0, "nothing accepted the connection");
    // every attempt that finished timed out (none was refused)
    assert_eq!(sdn["connect_timeouts"], sdn["connect_failures"], "{sdn}");
    // each went through the forwarder (no route: Nack)
    assert_eq!(d.fwd.core.counters.rejected, K);
}

/// A `faces/create` command for `uri`, written on `s`.
fn send_face_create(s: &mut TcpStream, uri: &str, nonce: u32) {
    let cmd = CommandInterest {
        scope: Scope::Localhost,
        module: "faces".into(),
        verb: "create".into(),
        params: ControlParameters {
            uri: Some(uri.into()),
            ..Default::default()
        },
        nonce,
        lifetime_ms: 10_000,
        signature_time_ms: u64::from(nonce),
        signature_nonce: u64::from(nonce),
    };
    s.write_all(&cmd.encode().unwrap()).unwrap();
}

/// The ControlResponse in `frame` when it is a `faces/create` reply.
fn face_create_reply(frame: &[u8]) -> Option<ControlResponse> {
    match Frame::decode(frame).unwrap().net {
        Some(NetPacket::Data(d))
            if d.name
                .to_string()
                .starts_with("/localhost/nfd/faces/create") =>
        {
            Some(ControlResponse::decode(d.content.unwrap()).unwrap())
        }
        _ => None,
    }
}

/// `faces/create` towards a TCP address that never answers does not hold up forwarding: on the
/// same stream, the command and then K Interests (each sent when the previous one's Nack came
/// back); TCP keeps them in order, so the daemon reads the command first. A connect in the
/// loop (the old `connect_timeout` of 3 s) answered the command after 3 s and only then the
/// first Interest: 0 Nacks before the reply. Now the K Nacks come first and the command is
/// answered 406 when its connect times out (3 s later). Counts, not times: only K round
/// trips on loopback taking 3 s could break it.
#[test]
fn a_face_create_towards_an_unanswering_address_does_not_stall_forwarding() {
    const K: usize = 20;
    let (_listener, _filler, addr) = unanswering_listener();
    let r = start("");
    let mut s = connect(r.tcp);
    let mut buf = Vec::new();
    send_face_create(&mut s, &format!("tcp4://{addr}"), 1);
    let (mut nacks, mut reply) = (0, None);
    for k in 0..K {
        s.write_all(&interest(&format!("/nowhere/f{k}"), k as u32 + 10))
            .unwrap();
        loop {
            let f = read_frame(&mut s, &mut buf).expect("a frame");
            if let Some(rsp) = face_create_reply(&f) {
                reply.get_or_insert((nacks, rsp));
                continue;
            }
            assert!(Frame::decode(&f).unwrap().is_nack());
            nacks += 1;
            break;
        }
    }
    let (before, rsp) = match reply {
        Some(r) => r,
        None => {
            let f = read_frame(&mut s, &mut buf).expect("the faces/create reply");
            (
                nacks,
                face_create_reply(&f).expect("the faces/create reply"),
            )
        }
    };
    assert_eq!(before, K, "Nacks forwarded before the command's reply");
    assert_eq!(rsp.status_code, 406, "{}", rsp.status_text);
    assert!(rsp.status_text.contains("timed out"), "{}", rsp.status_text);
    let d = r.finish();
    assert_eq!(d.face_count(), 1, "no face was opened towards {addr}");
}

/// `faces/create` towards a listening TCP address opens the face (200, its id and URIs) once
/// the connect completes; asked again, 409 with the same face.
#[test]
fn a_face_create_on_tcp_opens_the_face_when_the_connect_completes() {
    let peer = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = peer.local_addr().unwrap();
    let r = start("");
    let mut s = connect(r.tcp);
    let mut buf = Vec::new();
    let uri = format!("tcp4://{addr}");
    let mut ask = |nonce| {
        send_face_create(&mut s, &uri, nonce);
        let f = read_frame(&mut s, &mut buf).expect("the faces/create reply");
        face_create_reply(&f).expect("the faces/create reply")
    };
    let first = ask(1);
    assert_eq!(first.status_code, 200, "{}", first.status_text);
    let body = first.body.unwrap();
    assert_eq!(body.uri.as_deref(), Some(uri.as_str()));
    assert!(body.face_id.is_some_and(|id| id >= 256));
    let again = ask(2);
    assert_eq!(again.status_code, 409, "{}", again.status_text);
    assert_eq!(again.body.unwrap().face_id, body.face_id);
    let (_accepted, _) = peer.accept().unwrap();
    // two asked back to back (the second's connect may be under way when the first's face
    // opens): one face, the second answered 409 with it
    let other = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let uri = format!("tcp4://{}", other.local_addr().unwrap());
    send_face_create(&mut s, &uri, 3);
    send_face_create(&mut s, &uri, 4);
    let mut codes = Vec::new();
    let mut ids = Vec::new();
    while codes.len() < 2 {
        let f = read_frame(&mut s, &mut buf).expect("the faces/create replies");
        let rsp = face_create_reply(&f).expect("a faces/create reply");
        codes.push(rsp.status_code);
        ids.push(rsp.body.unwrap().face_id);
    }
    assert_eq!(codes, [200, 409]);
    assert_eq!(ids[0], ids[1]);
    let d = r.finish();
    assert_eq!(d.face_count(), 3);
}

/// A Unix listener (backlog 0) whose accept queue is full: the connections that fill it are
/// never accepted, so a blocking connect to it waits until the listener accepts (as a
/// controller that stopped accepting). The set-up checks it: a non-blocking probe gets EAGAIN.
/// None (the test is skipped, said on stderr) when the kernel never reports the queue full.
struct FullUnixListener {
    listener: std::os::unix::net::UnixListener,
    fillers: Vec<mio::net::UnixStream>,
    path: std::path::PathBuf,
}

fn full_unix_listener(tag: &str) -> Option<FullUnixListener> {
    use std::os::fd::FromRawFd;
    use std::os::unix::ffi::OsStrExt;
    let path = std::env::temp_dir().join(format!("ndncc-{tag}-{}.sock", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let bytes = path.as_os_str().as_bytes();
    // SAFETY: plain socket calls on a descriptor this function owns; the listener takes it
    let listener = unsafe {
        let fd = libc::socket(libc::AF_UNIX, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        assert!(fd >= 0, "socket");
        let mut sa: libc::sockaddr_un = std::mem::zeroed();
        sa.sun_family = libc::AF_UNIX as libc::sa_family_t;
        assert!(bytes.len() < sa.sun_path.len(), "socket path too long");
        for (d, s) in sa.sun_path.iter_mut().zip(bytes) {
            *d = *s as libc::c_char;
        }
        let len = std::mem::size_of::<libc::sockaddr_un>() as libc::socklen_t;
        assert_eq!(
            libc::bind(fd, std::ptr::addr_of!(sa).cast(), len),
            0,
            "bind {}",
            path.display()
        );
        assert_eq!(libc::listen(fd, 0), 0, "listen");
        std::os::unix::net::UnixListener::from_raw_fd(fd)
    };
    let mut fillers = Vec::new();
    // non-blocking connects until one is told to wait (EAGAIN): the queue is then full
    for _ in 0..64 {
        match mio::net::UnixStream::connect(&path) {
            Ok(s) => fillers.push(s),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                return Some(FullUnixListener {
                    listener,
                    fillers,
                    path,
                })
            }
            Err(e) => panic!("connect {}: {e}", path.display()),
        }
    }
    eprintln!(
        "SKIPPED: 64 connects to a Unix listener of backlog 0 all went through without an \
         accept; this kernel does not report a full accept queue (EAGAIN), so a blocking \
         connect could not be made to wait"
    );
    let _ = std::fs::remove_file(&path);
    None
}

impl FullUnixListener {
    /// Accepts the connections that filled the queue: the listener has room again.
    fn drain(&mut self) {
        for _ in 0..self.fillers.len() {
            self.listener.accept().unwrap();
        }
    }
}

impl Drop for FullUnixListener {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// While the SDN controller's Unix listener does not accept (its accept queue full), the
/// daemon keeps forwarding: the connect is non-blocking, and Linux answers EAGAIN at once, an
/// attempt failed (counted, not a time-out) and retried after the back-off. A blocking
/// connect (the old code) stopped the loop at the first attempt: not one of the K Interests
/// came back. Once the controller accepts again, the next attempt connects and the HELLO is
/// the first frame it reads. Counts, not times.
#[test]
fn a_controller_whose_unix_accept_queue_is_full_does_not_stall_forwarding() {
    use ndncc_rt::sdn::frame::{Decoder, Msg};
    const K: u64 = 40;
    let Some(mut full) = full_unix_listener("sdn-full") else {
        return;
    };
    let r = start(&format!(
        "[sdn]\ncontroller = \"unix://{}\"\nnode = 7\nretry_min_ms = 1\nretry_max_ms = 1\n",
        full.path.display()
    ));
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut b = [0u8; 9000];
    for k in 0..K {
        udp.send_to(&interest(&format!("/nowhere/u{k}"), k as u32 + 1), r.udp)
            .unwrap();
        let n = udp.recv(&mut b).expect("a Nack for each Interest");
        assert!(Frame::decode(&b[..n]).unwrap().is_nack());
    }
    // the controller accepts again: the daemon's next attempt gets through, HELLO first
    full.drain();
    full.listener.set_nonblocking(true).unwrap();
    let mut conn = None;
    for _ in 0..500 {
        match full.listener.accept() {
            Ok((s, _)) => {
                conn = Some(s);
                break;
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => panic!("accept: {e}"),
        }
    }
    let mut conn = conn.expect("the daemon connects once the controller accepts");
    conn.set_nonblocking(false).unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut decoder = Decoder::default();
    let mut buf = [0u8; 4096];
    let msg = loop {
        if let Some(m) = decoder.next_msg().unwrap() {
            break m;
        }
        let n = conn.read(&mut buf).expect("the HELLO");
        assert!(n > 0, "the daemon closed the connection");
        decoder.push(&buf[..n]);
    };
    assert!(matches!(msg, Msg::Hello { node: 7, .. }), "{msg:?}");
    let d = r.finish();
    let report: serde_json::Value = serde_json::from_str(&d.report()).unwrap();
    let sdn = &report["sdn"];
    assert_eq!(sdn["connects"], 1, "{sdn}");
    assert!(sdn["connect_failures"].as_u64().unwrap() >= 1, "{sdn}");
    // EAGAIN is an answer, not a connect left under way
    assert_eq!(sdn["connect_timeouts"], 0, "{sdn}");
    assert_eq!(d.fwd.core.counters.rejected, K);
}

/// `faces/create` towards a Unix listener whose accept queue is full does not stall
/// forwarding: the command is answered 406 at once (the connect would have to wait for the
/// listener) and the K Interests that follow it on the same stream are Nacked. The old
/// blocking connect stopped the loop at the command: no reply, no Nack. Once the listener has
/// room, the same command opens the face (200, the URI as asked); asked again, 409.
#[test]
fn a_face_create_towards_a_full_unix_listener_does_not_stall_forwarding() {
    const K: usize = 20;
    let Some(mut full) = full_unix_listener("face-full") else {
        return;
    };
    let r = start("");
    let mut s = connect(r.tcp);
    let mut buf = Vec::new();
    let uri = format!("unix://{}", full.path.display());
    send_face_create(&mut s, &uri, 1);
    let (mut nacks, mut reply) = (0, None);
    for k in 0..K {
        s.write_all(&interest(&format!("/nowhere/v{k}"), k as u32 + 10))
            .unwrap();
        loop {
            let f = read_frame(&mut s, &mut buf).expect("a frame");
            if let Some(rsp) = face_create_reply(&f) {
                reply = Some(rsp);
                continue;
            }
            assert!(Frame::decode(&f).unwrap().is_nack());
            nacks += 1;
            break;
        }
    }
    assert_eq!(nacks, K);
    let rsp = reply.expect("the faces/create reply, before the Nacks");
    assert_eq!(rsp.status_code, 406, "{}", rsp.status_text);
    assert!(
        rsp.status_text.contains("accept queue is full"),
        "{}",
        rsp.status_text
    );
    full.drain();
    send_face_create(&mut s, &uri, 2);
    let f = read_frame(&mut s, &mut buf).expect("the faces/create reply");
    let ok = face_create_reply(&f).expect("the faces/create reply");
    assert_eq!(ok.status_code, 200, "{}", ok.status_text);
    let body = ok.body.unwrap();
    assert_eq!(body.uri.as_deref(), Some(uri.as_str()));
    assert_eq!(body.local_uri.as_deref(), Some("unix://"));
    send_face_create(&mut s, &uri, 3);
    let f = read_frame(&mut s, &mut buf).expect("the faces/create reply");
    let again = face_create_reply(&f).expect("the faces/create reply");
    assert_eq!(again.status_code, 409, "{}", again.status_text);
    assert_eq!(again.body.unwrap().face_id, body.face_id);
    let d = r.finish();
    assert_eq!(d.face_count(), 2);
}
