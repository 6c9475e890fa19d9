use super::*;

#[test]
fn encodings_are_told_apart_by_their_marks_and_bytes() {
    assert_eq!(detect_encoding(b"\xEF\xBB\xBFref", true), TextEncoding::Utf8Bom);
    assert_eq!(detect_encoding(b"\xFF\xFEr\0", true), TextEncoding::Utf16Le);
    assert_eq!(detect_encoding(b"\xFE\xFF\0r", true), TextEncoding::Utf16Be);
    assert_eq!(detect_encoding("ref;Zoë".as_bytes(), true), TextEncoding::Utf8);
    assert_eq!(detect_encoding(b"ref;Zo\xEB", true), TextEncoding::Windows1252);
    // A character cut where the look stopped.
    assert_eq!(detect_encoding(&"Zoë".as_bytes()[..3], false), TextEncoding::Utf8);
}

/// Windows-1252 whose first accented letter is far down the file (after what is looked at
/// first) is still told apart from UTF-8, and read as such to the end; UTF-8 with a
/// character cut at every buffer's edge stays UTF-8.
#[test]
fn an_encoding_is_told_by_the_whole_file_not_its_first_part() {
    let dir = tempfile::tempdir().expect("a folder");
    let mut text = String::from("ref,name\n");
    for n in 0..5_000 {
        text.push_str(&format!("u{n:05},Plain Name {n}\n"));
    }
    assert!(text.len() > SNIFF);
    text.push_str("late,Zoë Müller\n");
    let (bytes, _, _) = WINDOWS_1252.encode(&text);
    let path = dir.path().join("late.csv");
    std::fs::write(&path, &bytes).expect("written");
    let mut table = open(&path, None).expect("readable");
    assert_eq!(table.kind, FileKind::Csv { encoding: TextEncoding::Windows1252, delimiter: b',' });
    let mut last = None;
    while let Some(record) = table.next_record() {
        last = Some(record.expect("a row").cells);
    }
    assert_eq!(last.expect("rows"), ["late", "Zoë Müller"]);

    let mut text = String::from("ref,name\n");
    for n in 0..20_000 {
        text.push_str(&format!("u{n:05},Zoë {n}\n"));
    }
    let path = dir.path().join("utf8.csv");
    std::fs::write(&path, text.as_bytes()).expect("written");
    assert_eq!(
        open(&path, None).expect("readable").kind,
        FileKind::Csv { encoding: TextEncoding::Utf8, delimiter: b',' }
    );
    assert!(!rest_is_utf8(b"", &mut &"Zoë".as_bytes()[..3]).expect("read"), "cut at the end of the file");
}

#[test]
fn the_delimiter_is_the_commonest_outside_quotes() {
    assert_eq!(detect_delimiter("ref,name,email\n1;2"), b',');
    assert_eq!(detect_delimiter("ref;name;\"a,b,c\"\n"), b';');
    assert_eq!(detect_delimiter("ref\tname\temail"), b'\t');
    assert_eq!(detect_delimiter("ref"), b',');
}

#[test]
fn rows_are_numbered_as_a_spreadsheet_shows_them_whatever_the_line_ends() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("lf.csv", "ref,name\nu1,A\nu2,\"B\nC\"\nu3,D\n"),
        ("crlf.csv", "ref,name\r\nu1,A\r\nu2,\"B\r\nC\"\r\nu3,D\r\n"),
        ("bom.csv", "\u{feff}ref;name\r\nu1;A\r\n;\r\nu2;\"B\r\nC\"\r\nu3;D"),
        ("empty-lf.csv", "ref,name\nu1,A\n\nu2,\"B\nC\"\nu3,D\n"),
        ("empty-crlf.csv", "ref,name\r\nu1,A\r\n\r\nu2,\"B\r\nC\"\r\nu3,D\r\n"),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let table = open(&path, None).unwrap();
        let rows: Vec<(u64, String)> = table.map(|r| r.unwrap()).map(|r| (r.row, r.cells[0].clone())).collect();
        // A cell over two lines is one row; an empty line or a row of empty cells is a row
        // (skipped, counted).
        let expected: Vec<(u64, String)> = if name != "lf.csv" && name != "crlf.csv" {
            vec![(2, "u1".into()), (4, "u2".into()), (5, "u3".into())]
        } else {
            vec![(2, "u1".into()), (3, "u2".into()), (4, "u3".into())]
        };
        assert_eq!(rows, expected, "{name}");
    }
}

#[test]
fn decoding_streams_in_small_reads() {
    let text = "ref;name\nu1;Zoë Ünal\n".repeat(2000);
    let mut utf16 = vec![0xFF, 0xFE];
    for unit in text.encode_utf16() {
        utf16.extend_from_slice(&unit.to_le_bytes());
    }
    let mut decoded = String::new();
    Decoding::new(&utf16[..], TextEncoding::Utf16Le.decoder()).read_to_string(&mut decoded).unwrap();
    assert_eq!(decoded, text);
    let mut one = Vec::new();
    let mut reader = Decoding::new(&b"caf\xE9"[..], TextEncoding::Windows1252.decoder());
    let mut byte = [0u8; 1];
    while reader.read(&mut byte).unwrap() == 1 {
        one.push(byte[0]);
    }
    assert_eq!(String::from_utf8(one).unwrap(), "café");
}

#[test]
fn cells_read_as_shown() {
    assert_eq!(cell_text(&Data::Float(42.0)).0, "42");
    assert_eq!(cell_text(&Data::Float(1.5)).0, "1.5");
    assert_eq!(cell_text(&Data::String("00123".into())).0, "00123");
    assert_eq!(unquote("'=SUM(A1)"), "=SUM(A1)");
    assert_eq!(unquote("'quoted"), "'quoted");
}
