/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vectors.h - published known-answer vectors for the crypto primitives wgx
 * uses, as hex strings (plain C, so a C++ test can include it too).  They are
 * the vectors tests/unit/core/platform_test.cpp checks the host backend
 * against, so the kernel backend (kmod/platform.c) is held to the same data:
 *
 *   ChaCha20-Poly1305   RFC 8439 appendix A.5 (WireGuard's nonce layout:
 *                       32 zero bits || le64 counter)
 *   XChaCha20-Poly1305  draft-irtf-cfrg-xchacha-03 appendix A.3.1
 *   X25519              RFC 7748 sections 5.2 and 6.1
 *   BLAKE2s             RFC 7693 appendix B ("abc"), BLAKE2 reference KAT
 *                       (blake2s-kat.txt: unkeyed empty input; keyed with
 *                       key 00..1f over input 00..n-1)
 */
#ifndef WGX_TEST_VECTORS_H
#define WGX_TEST_VECTORS_H

/* ---- ChaCha20-Poly1305, RFC 8439 appendix A.5 ---- */
#define WGX_VEC_A5_KEY \
	"1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0"
/* Nonce bytes 00 00 00 00 01 02 03 04 05 06 07 08: counter 0x0807060504030201 (le64). */
#define WGX_VEC_A5_NONCE 0x0807060504030201ULL
#define WGX_VEC_A5_AAD \
	"f33388860000000000004e91"
#define WGX_VEC_A5_PLAIN \
	"496e7465726e65742d4472616674732061726520647261667420646f63756d65" \
	"6e74732076616c696420666f722061206d6178696d756d206f6620736978206d" \
	"6f6e74687320616e64206d617920626520757064617465642c207265706c6163" \
	"65642c206f72206f62736f6c65746564206279206f7468657220646f63756d65" \
	"6e747320617420616e792074696d652e20497420697320696e617070726f7072" \
	"6961746520746f2075736520496e7465726e65742d4472616674732061732072" \
	"65666572656e6365206d6174657269616c206f7220746f206369746520746865" \
	"6d206f74686572207468616e206173202fe2809c776f726b20696e2070726f67" \
	"726573732e2fe2809d"
/* Ciphertext followed by the 16-byte tag. */
#define WGX_VEC_A5_CIPHER \
	"64a0861575861af460f062c79be643bd5e805cfd345cf389f108670ac76c8cb2" \
	"4c6cfc18755d43eea09ee94e382d26b0bdb7b73c321b0100d4f03b7f355894cf" \
	"332f830e710b97ce98c8a84abd0b948114ad176e008d33bd60f982b1ff37c855" \
	"9797a06ef4f0ef61c186324e2b3506383606907b6a7c02b0f9f6157b53c867e4" \
	"b9166c767b804d46a59b5216cde7a4e99040c5a40433225ee282a1b0a06c523e" \
	"af4534d7f83fa1155b0047718cbc546a0d072b04b3564eea1b422273f548271a" \
	"0bb2316053fa76991955ebd63159434ecebb4e466dae5a1073a6727627097a10" \
	"49e617d91d361094fa68f0ff77987130305beaba2eda04df997b714d6c6f2c29" \
	"a6ad5cb4022b02709beead9d67890cbb22392336fea1851f38"

/* ---- XChaCha20-Poly1305, draft-irtf-cfrg-xchacha-03 appendix A.3.1 ---- */
#define WGX_VEC_XC_KEY \
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
#define WGX_VEC_XC_NONCE \
	"404142434445464748494a4b4c4d4e4f5051525354555657"
#define WGX_VEC_XC_AAD \
	"50515253c0c1c2c3c4c5c6c7"
/* Plaintext (ASCII, 114 bytes). */
#define WGX_VEC_XC_PLAIN \
	"Ladies and Gentlemen of the class of '99: If I could offer y" \
	"ou only one tip for the future, sunscreen would be it."
/* Ciphertext followed by the 16-byte tag. */
#define WGX_VEC_XC_CIPHER \
	"bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb" \
	"731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b452" \
	"2f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff9" \
	"21f9664c97637da9768812f615c68b13b52ec0875924c1c7987947deafd8780a" \
	"cf49"

/* ---- X25519, RFC 7748 ---- */
struct wgx_vec_x25519 {
	const char *scalar, *u, *out;
};

/* Section 5.2: scalar, input u-coordinate, output u-coordinate. */
#define WGX_VEC_X25519_52 { \
	{ "a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4", \
	  "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c", \
	  "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552" }, \
	{ "4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d", \
	  "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493", \
	  "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957" }, \
}
/* Section 6.1: Alice and Bob, their public keys and the shared secret. */
#define WGX_VEC_X25519_61_A_PRIV \
	"77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"
#define WGX_VEC_X25519_61_A_PUB \
	"8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"
#define WGX_VEC_X25519_61_B_PRIV \
	"5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb"
#define WGX_VEC_X25519_61_B_PUB \
	"de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"
#define WGX_VEC_X25519_61_SHARED \
	"4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"

/* ---- BLAKE2s ---- */
#define WGX_VEC_BLAKE2S_ABC \
	"508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982"
#define WGX_VEC_BLAKE2S_EMPTY \
	"69217a3079908094e11121d042354a7c1f55b6482ca1a51e1b250dfd1ed0eef9"
struct wgx_vec_blake2s_keyed {
	unsigned int n;		/* input 00..n-1 */
	const char *out;	/* 32-byte hash, key 00..1f */
};

#define WGX_VEC_BLAKE2S_KEYED { \
	{ 0, "48a8997da407876b3d79c0d92325ad3b89cbb754d86ab71aee047ad345fd2c49" }, \
	{ 1, "40d15fee7c328830166ac3f918650f807e7e01e177258cdc0a39b11f598066f1" }, \
	{ 2, "6bb71300644cd3991b26ccd4d274acd1adeab8b1d7914546c1198bbe9fc9d803" }, \
	{ 63, "c65382513f07460da39833cb666c5ed82e61b9e998f4b0c4287cee56c3cc9bcd" }, \
	{ 64, "8975b0577fd35566d750b362b0897a26c399136df07bababbde6203ff2954ed4" }, \
	{ 65, "21fe0ceb0052be7fb0f004187cacd7de67fa6eb0938d927677f2398c132317a8" }, \
	{ 78, "172ffc67153d12e0ca76a8b6cd5d4731885b39ce0cac93a8972a18006c8b8baf" }, \
	{ 255, "3fb735061abc519dfe979e54c1ee5bfad0a9d858b3315bad34bde999efd724dd" }, \
}

#endif /* WGX_TEST_VECTORS_H */
