extension XMLGuard {
  /// Reads the prolog, what comes before the root element, as it streams, and refuses a
  /// `<!DOCTYPE` there (the only place XML allows one). White space, the XML declaration,
  /// processing instructions and comments are passed over; the first other markup is the
  /// root element (or an error the parser reports), after which nothing more is looked at.
  ///
  /// UTF-16 documents are read by their 16-bit units, so that a declaration spelt in them
  /// is found as well.
  struct PrologScanner {
    /// How the prolog's characters are stored.
    enum Encoding: Sendable {
      /// One byte per ASCII character: UTF-8, ISO-8859-1, US-ASCII.
      case bytes
      case utf16BigEndian
      case utf16LittleEndian
    }

    /// What a `<` in the prolog starts.
    private enum Markup: Sendable {
      case undecided, instruction, comment, doctype, other
    }

    private enum State {
      case between
      case comment(dashes: Int)
      case instruction(afterQuestionMark: Bool)
      case done
    }

    var encoding = Encoding.bytes
    private var state = State.between

    /// The markup the prolog may hold, with the characters that tell it.
    private static let markups: [(text: [UInt8], markup: Markup)] = [
      (Array("<?".utf8), .instruction), (Array("<!--".utf8), .comment),
      (Array("<!DOCTYPE".utf8), .doctype),
    ]

    /// Scans `bytes` from `start`.
    ///
    /// - Parameters:
    ///   - bytes: The bytes received and not yet handed on.
    ///   - start: Where the previous scan stopped.
    ///   - base: The document offset of `bytes[0]`, for the problem's place.
    ///   - atEnd: Whether no bytes follow.
    /// - Returns: Where the scan stopped: the count, or a `<` (or half a UTF-16 unit) whose
    ///   meaning the bytes still to come decide; bytes from there are held back.
    /// - Throws: `Problem` with `dtdRefusal` at a `<!DOCTYPE`.
    /// - Complexity: O(n) in the bytes of the prolog; O(1) once the root element is reached.
    mutating func scan(
      _ bytes: UnsafeRawBufferPointer, from start: Int, base: Int, atEnd: Bool
    ) throws(Problem) -> Int {
      let width = encoding == .bytes ? 1 : 2
      var index = start
      while index + width <= bytes.count {
        let character = unit(bytes, at: index)
        switch state {
        case .done:
          return bytes.count
        case .comment(let dashes):
          if character == ascii(">"), dashes >= 2 {
            state = .between
          } else {
            state = .comment(dashes: character == ascii("-") ? dashes + 1 : 0)
          }
        case .instruction(let afterQuestionMark):
          if character == ascii(">"), afterQuestionMark {
            state = .between
          } else {
            state = .instruction(afterQuestionMark: character == ascii("?"))
          }
        case .between where character == ascii("<"):
          switch markup(bytes, at: index, atEnd: atEnd) {
          case .undecided:
            return index
          case .instruction:
            state = .instruction(afterQuestionMark: false)
            index += 2 * width
          case .comment:
            state = .comment(dashes: 0)
            index += 4 * width
          case .doctype:
            throw Problem(offset: base + index, reason: XMLGuard.dtdRefusal)
          case .other:
            state = .done
            return bytes.count
          }
          continue
        case .between:
          break
        }
        index += width
      }
      if case .done = state { return bytes.count }
      return atEnd ? bytes.count : index
    }

    /// The markup that the `<` at `index` starts (`.undecided` when the bytes end first).
    private func markup(_ bytes: UnsafeRawBufferPointer, at index: Int, atEnd: Bool) -> Markup {
      let width = encoding == .bytes ? 1 : 2
      let available = (bytes.count - index) / width
      for (text, markup) in Self.markups {
        var matches = true
        for offset in 0..<min(available, text.count) {
          var character = unit(bytes, at: index + offset * width)
          // `<!doctype` too: libxml2 would refuse it, and so does the guard.
          if character >= ascii("a"), character <= ascii("z") { character -= 0x20 }
          if character != UInt16(text[offset]) {
            matches = false
            break
          }
        }
        guard matches else { continue }
        if available >= text.count { return markup }
        if !atEnd { return .undecided }
      }
      return .other
    }

    /// The character unit at `index`: a byte, or a UTF-16 unit.
    private func unit(_ bytes: UnsafeRawBufferPointer, at index: Int) -> UInt16 {
      switch encoding {
      case .bytes: return UInt16(bytes[index])
      case .utf16BigEndian: return UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
      case .utf16LittleEndian: return UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8
      }
    }

    private func ascii(_ character: Unicode.Scalar) -> UInt16 {
      UInt16(character.value)
    }
  }
}
