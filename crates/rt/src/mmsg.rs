//! Batched UDP system calls: `recvmmsg` and `sendmmsg` (Linux), so that a burst of datagrams
//! costs one system call instead of one each. The only `unsafe` code of the crate; each call
//! gets buffers it owns for the call's duration and checks what the kernel returns. Used by
//! the daemon's UDP faces and by the client face (the bench's load generator).

use std::io;
use std::mem::{size_of, zeroed};
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::os::fd::RawFd;

/// Datagrams per call.
pub const BATCH: usize = 32;
/// Bytes per receive slot (the largest UDP payload).
pub const SLOT: usize = 65_536;

fn to_sockaddr(a: &SocketAddr) -> (libc::sockaddr_storage, libc::socklen_t) {
    // SAFETY: sockaddr_storage is plain data; all-zero is a valid value
    let mut ss: libc::sockaddr_storage = unsafe { zeroed() };
    let len = match a {
        SocketAddr::V4(v4) => {
            // SAFETY: sockaddr_storage is large and aligned enough for sockaddr_in
            let sin = unsafe { &mut *(&mut ss as *mut _ as *mut libc::sockaddr_in) };
            sin.sin_family = libc::AF_INET as libc::sa_family_t;
            sin.sin_port = v4.port().to_be();
            sin.sin_addr.s_addr = u32::from(*v4.ip()).to_be();
            size_of::<libc::sockaddr_in>()
        }
        SocketAddr::V6(v6) => {
            // SAFETY: as above, for sockaddr_in6
            let sin6 = unsafe { &mut *(&mut ss as *mut _ as *mut libc::sockaddr_in6) };
            sin6.sin6_family = libc::AF_INET6 as libc::sa_family_t;
            sin6.sin6_port = v6.port().to_be();
            sin6.sin6_addr.s6_addr = v6.ip().octets();
            sin6.sin6_flowinfo = v6.flowinfo();
            sin6.sin6_scope_id = v6.scope_id();
            size_of::<libc::sockaddr_in6>()
        }
    };
    (ss, len as libc::socklen_t)
}

fn from_sockaddr(ss: &libc::sockaddr_storage) -> Option<SocketAddr> {
    match i32::from(ss.ss_family) {
        libc::AF_INET => {
            // SAFETY: the family says the storage holds a sockaddr_in
            let sin = unsafe { &*(ss as *const _ as *const libc::sockaddr_in) };
            let ip = Ipv4Addr::from(u32::from_be(sin.sin_addr.s_addr));
            Some(SocketAddr::V4(SocketAddrV4::new(
                ip,
                u16::from_be(sin.sin_port),
            )))
        }
        libc::AF_INET6 => {
            // SAFETY: the family says the storage holds a sockaddr_in6
            let sin6 = unsafe { &*(ss as *const _ as *const libc::sockaddr_in6) };
            Some(SocketAddr::V6(SocketAddrV6::new(
                Ipv6Addr::from(sin6.sin6_addr.s6_addr),
                u16::from_be(sin6.sin6_port),
                sin6.sin6_flowinfo,
                sin6.sin6_scope_id,
            )))
        }
        _ => None,
    }
}

/// Receives up to [`BATCH`] datagrams into `buf` (resized to `BATCH * SLOT`): datagram `i`
/// is `buf[i * SLOT..][..len]`, from `from`. `Ok(empty)` never happens: no datagram is
/// `WouldBlock`. A datagram cut to the slot (MSG_TRUNC) is reported with `truncated`.
pub fn recv_batch(fd: RawFd, buf: &mut Vec<u8>, out: &mut Vec<Received>) -> io::Result<()> {
    out.clear();
    buf.resize(BATCH * SLOT, 0);
    // SAFETY: plain data, all-zero valid
    let mut addrs: [libc::sockaddr_storage; BATCH] = unsafe { zeroed() };
    let mut iovs: [libc::iovec; BATCH] = unsafe { zeroed() };
    let mut msgs: [libc::mmsghdr; BATCH] = unsafe { zeroed() };
    for i in 0..BATCH {
        iovs[i] = libc::iovec {
            iov_base: buf[i * SLOT..].as_mut_ptr().cast(),
            iov_len: SLOT,
        };
        msgs[i].msg_hdr.msg_name = (&mut addrs[i] as *mut libc::sockaddr_storage).cast();
        msgs[i].msg_hdr.msg_namelen = size_of::<libc::sockaddr_storage>() as libc::socklen_t;
        msgs[i].msg_hdr.msg_iov = &mut iovs[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
    }
    // SAFETY: every pointer in `msgs` points into `addrs`, `iovs` and `buf`, which live
    // until the call returns; the kernel writes at most the lengths given
    let n = unsafe {
        libc::recvmmsg(
            fd,
            msgs.as_mut_ptr(),
            BATCH as libc::c_uint,
            libc::MSG_DONTWAIT,
            std::ptr::null_mut(),
        )
    };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    for (m, a) in msgs.iter().zip(&addrs).take(n as usize) {
        out.push(Received {
            len: (m.msg_len as usize).min(SLOT),
            from: from_sockaddr(a),
            truncated: m.msg_hdr.msg_flags & libc::MSG_TRUNC != 0,
        });
    }
    Ok(())
}

/// One datagram of a [`recv_batch`].
#[derive(Clone, Copy, Debug)]
pub struct Received {
    pub len: usize,
    /// None for an address family other than IPv4/IPv6.
    pub from: Option<SocketAddr>,
    pub truncated: bool,
}

/// Sends `datagrams` (bytes, destination) with as few `sendmmsg` calls as the kernel allows;
/// returns how many were not sent. A full socket buffer stops the batch (the rest count as not
/// sent); a datagram the kernel refuses for itself (too large, bad destination) is skipped and
/// the others are still sent.
pub fn send_batch(fd: RawFd, datagrams: &[(Vec<u8>, SocketAddr)]) -> usize {
    send_with(fd, datagrams.len(), |i| {
        (datagrams[i].0.as_slice(), Some(datagrams[i].1))
    })
}

/// Sends `datagrams` on a connected socket (no destination), as [`send_batch`].
pub fn send_connected(fd: RawFd, datagrams: &[Vec<u8>]) -> usize {
    send_with(fd, datagrams.len(), |i| (datagrams[i].as_slice(), None))
}

fn send_with<'a>(
    fd: RawFd,
    count: usize,
    item: impl Fn(usize) -> (&'a [u8], Option<SocketAddr>),
) -> usize {
    let (mut done, mut unsent) = (0, 0);
    while done < count {
        let range = done..(done + BATCH).min(count);
        let items: Vec<_> = range.map(&item).collect();
        let mut addrs: Vec<Option<(libc::sockaddr_storage, libc::socklen_t)>> = items
            .iter()
            .map(|(_, a)| a.as_ref().map(to_sockaddr))
            .collect();
        let mut iovs: Vec<libc::iovec> = items
            .iter()
            .map(|(d, _)| libc::iovec {
                iov_base: d.as_ptr() as *mut libc::c_void,
                iov_len: d.len(),
            })
            .collect();
        // SAFETY: plain data, all-zero valid
        let mut msgs: Vec<libc::mmsghdr> = (0..items.len()).map(|_| unsafe { zeroed() }).collect();
        for (i, m) in msgs.iter_mut().enumerate() {
            if let Some((ss, len)) = &mut addrs[i] {
                m.msg_hdr.msg_name = (ss as *mut libc::sockaddr_storage).cast();
                m.msg_hdr.msg_namelen = *len;
            }
            m.msg_hdr.msg_iov = &mut iovs[i];
            m.msg_hdr.msg_iovlen = 1;
        }
        // SAFETY: the pointers point into `addrs`, `iovs` and the datagrams, alive for the
        // call; the kernel only reads them
        let n = unsafe {
            libc::sendmmsg(
                fd,
                msgs.as_mut_ptr(),
                msgs.len() as libc::c_uint,
                libc::MSG_DONTWAIT,
            )
        };
        if n <= 0 {
            let e = io::Error::last_os_error();
            if n < 0 && e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            if n == 0 || e.kind() == io::ErrorKind::WouldBlock {
                // the socket's buffer is full: the rest of the batch is dropped
                return unsent + count - done;
            }
            // the kernel refused the first datagram of the batch (too large, unreachable
            // destination...): that one is not sent, the others still are
            unsent += 1;
            done += 1;
            continue;
        }
        done += n as usize;
    }
    unsent
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    #[test]
    fn a_batch_sent_is_a_batch_received_with_addresses() {
        let a = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let b = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let to = b.local_addr().unwrap();
        let grams: Vec<(Vec<u8>, SocketAddr)> = (0..40u8)
            .map(|i| (vec![i; 1 + usize::from(i) * 30], to))
            .collect();
        assert_eq!(send_batch(a.as_raw_fd(), &grams), 0);
        let (mut buf, mut got) = (Vec::new(), Vec::new());
        let mut seen = Vec::new();
        while seen.len() < grams.len() {
            recv_batch(b.as_raw_fd(), &mut buf, &mut got).unwrap();
            assert!(got.len() <= BATCH);
            for (k, r) in got.iter().enumerate() {
                assert_eq!(r.from, Some(a.local_addr().unwrap()));
                assert!(!r.truncated);
                seen.push(buf[k * SLOT..][..r.len].to_vec());
            }
        }
        let sent: Vec<Vec<u8>> = grams.into_iter().map(|g| g.0).collect();
        assert_eq!(seen, sent, "every datagram, whole, in order");
        let e = recv_batch(b.as_raw_fd(), &mut buf, &mut got).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::WouldBlock);
    }

    /// One datagram the kernel refuses (over the UDP maximum) costs that datagram only, not
    /// the rest of the batch behind it.
    #[test]
    fn a_refused_datagram_does_not_drop_the_others() {
        let a = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let b = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let to = b.local_addr().unwrap();
        let mut grams: Vec<(Vec<u8>, SocketAddr)> = (0..6u8).map(|i| (vec![i; 10], to)).collect();
        grams.insert(2, (vec![9; 70_000], to)); // EMSGSIZE
        assert_eq!(send_batch(a.as_raw_fd(), &grams), 1);
        let (mut buf, mut got, mut seen) = (Vec::new(), Vec::new(), Vec::new());
        while let Ok(()) = recv_batch(b.as_raw_fd(), &mut buf, &mut got) {
            for (k, r) in got.iter().enumerate() {
                seen.push(buf[k * SLOT]);
                assert_eq!(r.len, 10);
            }
        }
        assert_eq!(seen, vec![0, 1, 2, 3, 4, 5]);
    }

    /// A full socket buffer stops the batch, and everything not sent is counted: what the peer
    /// receives and what `send_connected` reports as unsent add up to what was given.
    #[test]
    fn a_full_socket_counts_the_rest_of_the_batch_as_unsent() {
        // a datagram socket pair nobody reads: the peer's queue fills, then EAGAIN
        let (a, b) = std::os::unix::net::UnixDatagram::pair().unwrap();
        b.set_nonblocking(true).unwrap();
        let grams: Vec<Vec<u8>> = (0..20_000u32).map(|i| i.to_be_bytes().to_vec()).collect();
        let unsent = send_connected(a.as_raw_fd(), &grams);
        assert!(unsent > 0, "the queue never filled");
        let mut buf = [0u8; 16];
        let mut received = 0;
        while let Ok(n) = b.recv(&mut buf) {
            assert_eq!(&buf[..n], &grams[received][..], "in order, the first ones");
            received += 1;
        }
        assert_eq!(received + unsent, grams.len());
    }

    #[test]
    fn addresses_convert_both_ways() {
        for a in ["127.0.0.1:6363", "[::1]:9", "10.1.2.3:65535"] {
            let a: SocketAddr = a.parse().unwrap();
            assert_eq!(from_sockaddr(&to_sockaddr(&a).0), Some(a));
        }
    }
}
